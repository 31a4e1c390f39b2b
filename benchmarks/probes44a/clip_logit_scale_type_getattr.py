"""Two-tower contrastive (CLIP-style) training where logit_scale is either a fixed Python
float or a learned log-scale Parameter (CLIP stores it in log space). The helper tells
them apart EAFP-style with getattr on the type; under torch.compile getattr(<builtin
type>, <missing attr>) does not raise (pytorch/pytorch#198197), so the fixed float 10.0 is
silently exponentiated."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def effective_scale(logit_scale):
    # learned scale: tensor in log space; fixed scale: plain Python number
    try:
        getattr(type(logit_scale), "exp")
    except AttributeError:
        return logit_scale
    return torch.as_tensor(logit_scale).exp()


def clip_loss(img_emb, txt_emb, logit_scale):
    img_emb = F.normalize(img_emb, dim=-1)
    txt_emb = F.normalize(txt_emb, dim=-1)
    logits = effective_scale(logit_scale) * img_emb @ txt_emb.t()
    target = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2


class Tower(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.GELU(), nn.Linear(64, d_out))

    def forward(self, x):
        return self.net(x)


def train_step(img_tower, txt_tower, imgs, txts, logit_scale):
    return clip_loss(img_tower(imgs), txt_tower(txts), logit_scale)


def main():
    torch.manual_seed(0)
    img_tower, txt_tower = Tower(24, 16), Tower(12, 16)
    params = list(img_tower.parameters()) + list(txt_tower.parameters())
    opt = torch.optim.AdamW(params, lr=3e-3)
    step = torch.compile(train_step)
    pairs = [(torch.randn(16, 24), torch.randn(16, 12)) for _ in range(4)]
    for epoch in range(3):
        total = 0.0
        for imgs, txts in pairs:
            loss = step(img_tower, txt_tower, imgs, txts, 10.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} mean contrastive loss {total / len(pairs):.4f}")
    with torch.no_grad():
        imgs, txts = pairs[0]
        sim = F.normalize(img_tower(imgs), dim=-1) @ F.normalize(txt_tower(txts), dim=-1).t()
        top1 = (sim.argmax(1) == torch.arange(16)).float().mean().item()
    print(f"retrieval top1 on batch0 {top1:.3f}")


if __name__ == "__main__":
    main()
