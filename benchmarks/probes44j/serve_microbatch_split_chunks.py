"""Embedding service: requests are batched with a variable batch size; the batch
dim is marked dynamic, and the encoder bounds peak memory by running the batch
through the MLP in micro-batches of 8 rows.

Source: pytorch/pytorch#139936 ("Static guard on tensor dim size", chunk/split
keeps recompiling) and PR #141077, which keeps `split` specialized on the number
of output tensors: with a dynamic batch dim the guard becomes the number of
micro-batches, so every new chunk count recompiles despite mark_dynamic.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
MICRO_BATCH = 8


class Encoder(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, dim))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        outs = [self.mlp(chunk) for chunk in x.split(MICRO_BATCH)]
        return self.norm(torch.cat(outs))


encoder = Encoder().eval()
serve = torch.compile(encoder)


def handle(batch):
    torch._dynamo.mark_dynamic(batch, 0)
    with torch.no_grad():
        emb = serve(batch)
    return nn.functional.normalize(emb, dim=-1)


def main():
    sizes = [5, 12, 20, 30, 37, 44, 51, 60, 70, 9]
    for n in sizes:
        reqs = torch.randn(n, 64)
        emb = handle(reqs)
        print(f"batch {n:3d}: mean norm {emb.norm(dim=-1).mean().item():.3f} first {emb[0, 0].item():+.4f}")


if __name__ == "__main__":
    main()
