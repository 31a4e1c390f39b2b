# CLIP-style contrastive training over 2 ranks: each rank embeds its local image/text batch, the
# compiled loss all_gathers the other ranks' embeddings (no grad) and puts the local ones back
# (with grad) so the logits span the global batch.
# Run: torchrun --standalone --nproc-per-node 2 clip_allgather_loss_ok.py
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
img_enc = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 32))
txt_enc = nn.Sequential(nn.Embedding(100, 32), nn.Flatten(), nn.Linear(8 * 32, 32))
params = list(img_enc.parameters()) + list(txt_enc.parameters())
opt = torch.optim.AdamW(params, lr=1e-3)
logit_scale = 1 / 0.07


def gather_with_local_grad(z):
    parts = [torch.zeros_like(z) for _ in range(world)]
    dist.all_gather(parts, z.detach())
    parts[rank] = z
    return torch.cat(parts)


@torch.compile
def clip_loss(images, tokens):
    zi = F.normalize(img_enc(images), dim=-1)
    zt = F.normalize(txt_enc(tokens), dim=-1)
    all_i, all_t = gather_with_local_grad(zi), gather_with_local_grad(zt)
    logits = logit_scale * zi @ all_t.t()
    logits_t = logit_scale * zt @ all_i.t()
    labels = torch.arange(zi.shape[0]) + rank * zi.shape[0]
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits_t, labels)) / 2


torch.manual_seed(100 + rank)
for step in range(5):
    images = torch.randn(16, 64)
    tokens = torch.randint(0, 100, (16, 8))
    loss = clip_loss(images, tokens)
    opt.zero_grad()
    loss.backward()
    for p in params:  # plain data-parallel gradient averaging
        dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
