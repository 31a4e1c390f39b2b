"""Benchmark script that compiles a small CNN with fullgraph=True, trains it briefly, then
measures FLOPs per sample with torch.utils.flop_counter.FlopCounterMode around the
compiled model. Since torch 2.12/2.13 fullgraph=True raises when no frame was compiled,
and a non-infra dispatch mode makes Dynamo skip the frame
(pytorch/pytorch#181247, #177809, #181940)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode


class SmallCNN(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, n_cls)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def count_flops(fn, x):
    counter = FlopCounterMode(display=False)
    with counter:
        fn(x)
    return counter.get_total_flops()


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    cmodel = torch.compile(model, fullgraph=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for it in range(3):
        x = torch.randn(16, 1, 28, 28)
        y = torch.randint(0, 10, (16,))
        loss = F.cross_entropy(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it} loss {loss.item():.4f}")
    x = torch.randn(4, 1, 28, 28)
    flops = count_flops(cmodel, x)
    print(f"forward GFLOPs per sample: {flops / 4 / 1e9:.6f}")


if __name__ == "__main__":
    main()
