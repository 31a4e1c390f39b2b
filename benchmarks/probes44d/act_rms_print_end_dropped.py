"""Per-block activation RMS printed on one line, with print made reorderable.

To keep the debug print from graph-breaking, the user registers `print` in
torch._dynamo.config.reorderable_logging_functions, and prints each block's
activation RMS with end=" " so one forward gives one compact log line.  When
Dynamo replays the reordered print after the graph, it drops the `end=`
keyword: every value lands on its own line, and the one-line-per-step log
format that a log parser relies on is lost.  No graph break, no warning.
Source: pytorch PR #190840 (2026): "print(x, end="") hits the same trap"
(reordered log calls silently lose keyword arguments).
"""
import torch
import torch.nn as nn

torch._dynamo.config.reorderable_logging_functions.add(print)
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Tower(nn.Module):
    def __init__(self, d=16, depth=3, debug=True):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 4)
        self.debug = debug

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            x = blk(x)
            if self.debug:
                print(f"b{i}", x.detach().pow(2).mean().sqrt(), end=" ")
        if self.debug:
            print("|")
        return self.head(x)


def main():
    model = Tower()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        x = torch.randn(8, 16)
        target = torch.randint(0, 4, (8,))
        print(f"step {step}:", end=" ")
        logits = cmodel(x)
        loss = nn.functional.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
