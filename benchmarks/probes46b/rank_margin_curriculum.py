"""Pairwise ranking recommender whose hinge margin ramps up over the first steps.

Matrix-factorisation scorer trained with F.margin_ranking_loss; the margin follows a
warm-up curriculum (small margin first, the full margin after `warmup` steps), computed
as a Python float and passed into the compiled loss every step. Source: hinge-style
pairwise objectives of implicit-feedback recommenders with a warm-up on the margin
(hand-written pattern); torch.nn.functional.margin_ranking_loss docs.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MFScorer(nn.Module):
    def __init__(self, users=200, items=500, dim=16):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.item = nn.Embedding(items, dim)
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1)


@torch.compile
def ranking_loss(model, u, pos, neg, margin):
    s_pos = model(u, pos)
    s_neg = model(u, neg)
    target = torch.ones_like(s_pos)
    return F.margin_ranking_loss(s_pos, s_neg, target, margin=margin)


def margin_at(step, full=0.5, warmup=12):
    return full * min(1.0, (step + 1) / warmup)


def main():
    model = MFScorer()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    g = torch.Generator().manual_seed(0)
    for step in range(20):
        u = torch.randint(0, 200, (256,), generator=g)
        pos = torch.randint(0, 250, (256,), generator=g)   # "liked" items live in the first half
        neg = torch.randint(250, 500, (256,), generator=g)
        loss = ranking_loss(model, u, pos, neg, margin_at(step))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 3:
            print(f"step {step:2d} margin {margin_at(step):.3f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
