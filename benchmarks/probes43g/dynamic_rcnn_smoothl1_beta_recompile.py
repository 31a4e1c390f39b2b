"""Box-regression head trained with Dynamic R-CNN's adaptive SmoothL1 beta.

Dynamic R-CNN (Zhang et al. 2020) shrinks the SmoothL1 beta during training
to the K-th smallest recent regression error; the compiled loss receives the
current beta as a Python float, updated every UPDATE_EVERY iterations.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
FEAT, ROIS, ITERS, UPDATE_EVERY, BETA_TOPK, INIT_BETA = 64, 128, 100, 10, 10, 1.0


class BoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(FEAT, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.cls = nn.Linear(128, 2)
        self.reg = nn.Linear(128, 4)

    def forward(self, feats):
        h = self.fc(feats)
        return self.cls(h), self.reg(h)


@torch.compile
def head_loss(head, feats, labels, targets, beta):
    cls_logits, deltas = head(feats)
    loss_cls = F.cross_entropy(cls_logits, labels)
    fg = (labels == 1).to(deltas.dtype)[:, None]
    loss_reg = (F.smooth_l1_loss(deltas, targets, beta=beta, reduction="none") * fg).sum() / ROIS
    err = (deltas - targets).abs().mean(-1).detach()
    reg_err = torch.where(fg[:, 0] > 0, err, torch.full_like(err, float("inf")))
    return loss_cls + loss_reg, reg_err


def sample_rois(proj, gen):
    feats = torch.randn(ROIS, FEAT, generator=gen)
    labels = (feats[:, 0] > 0).long()
    targets = feats @ proj
    return feats, labels, targets


def main():
    head = BoxHead()
    opt = torch.optim.SGD(head.parameters(), lr=0.02, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    proj = torch.randn(FEAT, 4, generator=gen) * 0.1
    beta, recent = INIT_BETA, []
    for it in range(ITERS):
        feats, labels, targets = sample_rois(proj, gen)
        loss, reg_err = head_loss(head, feats, labels, targets, beta)
        opt.zero_grad()
        loss.backward()
        opt.step()
        recent.append(reg_err.topk(BETA_TOPK, largest=False).values.max())
        if (it + 1) % UPDATE_EVERY == 0:
            beta = min(INIT_BETA, torch.stack(recent).median().item())
            recent = []
            print(f"iter {it + 1} loss {loss.item():.4f} beta {beta:.4f}")


if __name__ == "__main__":
    main()
