"""DeepSets/PointNet-style set encoder trained in bfloat16 on the CPU.

Each example is a set of points; the encoder embeds every point, mixes the
features with a residual layer, max-pools over the set (amax) and feeds the
pooled summary back to every point.  The training step is torch.compile'd.
Follows pytorch/pytorch#186799 (comment of 2026-09-21: amax backward in
fp16/bf16 with two gradient paths into the pooled tensor).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
DTYPE = torch.bfloat16


class SetEncoder(nn.Module):
    def __init__(self, d_in=2, d=2):
        super().__init__()
        self.embed = nn.Linear(d_in, d, bias=False)
        self.mix = nn.Linear(d, d, bias=False)
        self.head = nn.Linear(d, d, bias=False)

    def forward(self, pts):
        feat = self.embed(pts)
        feat = feat + self.mix(feat)                 # residual: two paths into feat
        pooled = feat.amax(dim=1, keepdim=True)      # max-pool over the set
        return feat + self.head(pooled.expand_as(feat))


def make_batch(n_sets=1, set_size=10):
    pts = torch.randn(n_sets, set_size, 2)
    target = torch.randn(n_sets, set_size, 2)
    return pts.to(DTYPE), target.to(DTYPE)


def train_step(model, opt, pts, target):
    opt.zero_grad(set_to_none=True)
    out = model(pts)
    loss = ((out - target) ** 2).mean()
    loss.backward()
    return loss


def grad_norm(model):
    return torch.sqrt(sum((p.grad.float() ** 2).sum() for p in model.parameters()))


def main():
    model = SetEncoder().to(DTYPE)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    cmodel = torch.compile(model)
    for it in range(3):
        pts, target = make_batch()
        loss = train_step(cmodel, opt, pts, target)
        gn = grad_norm(model)
        print(f"step {it}: loss {loss.float().item():.4f} grad-norm {gn.item():.4f}")
        opt.step()
    print("finite params:", all(torch.isfinite(p).all().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
