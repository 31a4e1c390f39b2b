"""Gradual magnitude pruning (Zhu & Gupta 2017 cubic sparsity schedule).

Every PRUNE_EVERY steps the target sparsity rises; a compiled helper computes
the new per-layer masks from the weight magnitudes with torch.kthvalue.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, D_H, C, BATCH, STEPS, PRUNE_EVERY = 32, 128, 10, 64, 120, 10
S_INIT, S_FINAL = 0.0, 0.9


def cubic_sparsity(step, begin=0, end=STEPS):
    t = min(max(step - begin, 0) / (end - begin), 1.0)
    return S_FINAL + (S_INIT - S_FINAL) * (1.0 - t) ** 3


@torch.compile
def magnitude_masks(weights, sparsity):
    masks = []
    for w in weights:
        k = max(1, int(sparsity * w.numel()))
        thresh = torch.kthvalue(w.detach().abs().flatten(), k).values
        masks.append((w.detach().abs() > thresh).to(w.dtype))
    return masks


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D_IN, D_H)
        self.fc2 = nn.Linear(D_H, D_H)
        self.fc3 = nn.Linear(D_H, C)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    layers = [model.fc1, model.fc2, model.fc3]
    masks = [torch.ones_like(l.weight) for l in layers]
    teacher = torch.randn(D_IN, C)
    for step in range(STEPS):
        x = torch.randn(BATCH, D_IN)
        y = (x @ teacher).argmax(-1)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % PRUNE_EVERY == 0:
            sparsity = cubic_sparsity(step)
            masks = magnitude_masks([l.weight for l in layers], sparsity)
        with torch.no_grad():
            for l, m in zip(layers, masks):
                l.weight.mul_(m)
        if step % 20 == 19:
            kept = sum(int(m.sum()) for m in masks) / sum(m.numel() for m in masks)
            print(f"step {step + 1} loss {loss.item():.4f} sparsity {sparsity:.3f} kept {kept:.3f}")


if __name__ == "__main__":
    main()
