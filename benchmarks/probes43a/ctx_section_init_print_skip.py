"""A small transformer-style encoder whose blocks wrap their sub-steps in a
`Section` context manager (a home-made profiling helper). Section.__init__
prints the section name when verbose. Source: pytorch/pytorch#191523
(graph break inside a context manager's __init__ makes Dynamo give up on the
rest of the frame: "Dynamo does not know how to enter a `Section` context
manager")."""
import torch
import torch.nn as nn

VERBOSE = True


class Section:
    def __init__(self, name):
        self.name = name
        if VERBOSE:
            print(f"[section] {name}")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        with Section("attn"):
            a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        with Section("mlp"):
            x = x + self.mlp(self.norm2(x))
        return x


class Encoder(nn.Module):
    def __init__(self, d=32, depth=2, n_cls=5):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(dim=1))


def main():
    torch.manual_seed(0)
    model = Encoder().eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        for step in range(3):
            x = torch.randn(4, 10, 32)
            logits = cmodel(x)
            print(f"step {step}: pred={logits.argmax(-1).tolist()} sum={logits.sum().item():.4f}")


if __name__ == "__main__":
    main()
