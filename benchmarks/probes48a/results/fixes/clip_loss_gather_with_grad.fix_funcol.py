"""Contrastive (CLIP/SigLIP-style) training on the CPU (gloo, 2 ranks): each rank embeds its
image/text pairs, the embeddings of every rank are gathered with gradients (open_clip's
`gather_with_grad=True`, which uses `torch.distributed.nn.all_gather`), and the InfoNCE loss is
taken against the global batch. The user compiles the whole loss computation.

Source: mlfoundations/open_clip src/open_clip/loss.py (`gather_features(...,
gather_with_grad=True)`: `torch.cat(torch.distributed.nn.all_gather(image_features), dim=0)`);
torch/distributed/nn/functional.py (`all_gather` refuses to run under torch.compile and names
`torch.distributed._functional_collectives.all_gather_single`).

Run: torchrun --standalone --nproc-per-node 2 clip_loss_gather_with_grad.py
"""
import datetime

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn
import torch.nn.functional as F


class Tower(nn.Module):
    def __init__(self, d_in, d_out=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.GELU(), nn.Linear(64, d_out))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


@torch.compile
def clip_loss(img_tower, txt_tower, images, texts, logit_scale, rank):
    img = img_tower(images)
    txt = txt_tower(texts)
    all_img = funcol.all_gather_tensor_autograd(img, 0, dist.group.WORLD)
    all_txt = funcol.all_gather_tensor_autograd(txt, 0, dist.group.WORLD)
    logits_i = logit_scale.exp() * img @ all_txt.T
    logits_t = logit_scale.exp() * txt @ all_img.T
    labels = torch.arange(img.shape[0]) + rank * img.shape[0]
    return (F.cross_entropy(logits_i, labels) + F.cross_entropy(logits_t, labels)) / 2


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    torch.manual_seed(0)
    img_tower, txt_tower = Tower(48), Tower(48)
    logit_scale = nn.Parameter(torch.tensor(2.6592))
    params = [*img_tower.parameters(), *txt_tower.parameters(), logit_scale]
    opt = torch.optim.AdamW(params, lr=1e-3)
    g = torch.Generator().manual_seed(rank)
    for step in range(4):
        images, texts = torch.randn(8, 48, generator=g), torch.randn(8, 48, generator=g)
        loss = clip_loss(img_tower, txt_tower, images, texts, logit_scale, rank)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        for p in params:  # average the gradients (no DDP wrapper here)
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
        opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
