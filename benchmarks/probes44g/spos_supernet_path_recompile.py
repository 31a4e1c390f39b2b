"""Single Path One-Shot (SPOS, Guo et al. 2020; megvii-model/SinglePathOneShot) supernet training.

Every step a random path (one candidate op per choice block) is sampled uniformly and set on the
supernet; only that path runs forward/backward. The whole supernet is compiled once.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def candidate_ops(c):
    return nn.ModuleList([
        nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU()),
        nn.Sequential(nn.Conv2d(c, c, 5, padding=2), nn.BatchNorm2d(c), nn.ReLU()),
        nn.Sequential(nn.Conv2d(c, c, 3, padding=1, groups=c), nn.Conv2d(c, c, 1), nn.BatchNorm2d(c), nn.ReLU()),
        nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(c, c, 1), nn.BatchNorm2d(c), nn.ReLU()),
    ])


class SuperNet(nn.Module):
    def __init__(self, c=8, n_blocks=4, n_cls=10):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.blocks = nn.ModuleList([candidate_ops(c) for _ in range(n_blocks)])
        self.head = nn.Linear(c, n_cls)
        self.path = [0] * n_blocks

    def set_path(self, path):
        self.path = path

    def forward(self, x):
        x = F.relu(self.stem(x))
        for ops, choice in zip(self.blocks, self.path):
            x = ops[choice](x)
        return self.head(x.mean((2, 3)))


def main():
    torch.manual_seed(0)
    model = SuperNet()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.randn(128, 3, 8, 8)
    labels = torch.randint(0, 10, (128,))
    for step in range(14):
        path = torch.randint(0, 4, (len(model.blocks),)).tolist()
        model.set_path(path)
        idx = torch.randint(0, 128, (16,))
        loss = F.cross_entropy(cmodel(data[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0 or step == 13:
            print(f"step {step:2d} path {path} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
