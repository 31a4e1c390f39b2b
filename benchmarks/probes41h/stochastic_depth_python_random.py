"""Small residual MLP classifier trained with stochastic depth ("layer drop").

Follows the pattern of pytorch/pytorch#95425 ("torch.compile does not work for
layer drop"): each residual block is skipped during training with probability
p, decided with Python's `random` module.  Training loop with a validation pass
each epoch and a best-checkpoint kept in memory.
"""
import copy
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)


class ResBlock(nn.Module):
    def __init__(self, dim, drop_prob):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 2)
        self.fc2 = nn.Linear(dim * 2, dim)
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.training and random.random() < self.drop_prob:
            return x  # skip the whole block this step
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, in_dim=20, dim=32, depth=4, n_cls=3):
        super().__init__()
        self.inp = nn.Linear(in_dim, dim)
        self.blocks = nn.ModuleList([ResBlock(dim, 0.1 * (i + 1)) for i in range(depth)])
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(h)


def make_data(n):
    x = torch.randn(n, 20)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    return x, y


def main():
    xtr, ytr = make_data(512)
    xva, yva = make_data(128)
    model = Net()
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    best_acc, best_state = -1.0, None
    for epoch in range(3):
        model.train()
        for i in range(0, 512, 64):
            loss = F.cross_entropy(cmodel(xtr[i:i + 64]), ytr[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (cmodel(xva).argmax(1) == yva).float().mean().item()
        if acc > best_acc:
            best_acc, best_state = acc, copy.deepcopy(model.state_dict())
        print(f"epoch {epoch}: last loss {loss.item():.3f} val acc {acc:.3f}")
    model.load_state_dict(best_state)
    print(f"best val acc {best_acc:.3f}")


if __name__ == "__main__":
    main()
