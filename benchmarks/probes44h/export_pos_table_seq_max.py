"""Deploy a small text classifier with torch.export and a dynamic sequence length.

The model has a learned positional table of 128 rows; the export asks for
sequences up to 1024 tokens (source: the Dim-range constraint violations of
pytorch/pytorch#146315 / #140011 and the export tutorial's "Constraints violated").
"""
import torch
import torch.nn as nn
from torch.export import Dim

torch.manual_seed(0)

VOCAB, D, MAX_POS = 500, 32, 128


class TinyEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(1, MAX_POS, D) * 0.02)
        self.ln = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.head = nn.Linear(D, 3)

    def forward(self, ids):
        seq = ids.shape[1]
        h = self.tok(ids) + self.pos[:, :seq]
        h = h + self.ff(self.ln(h))
        return self.head(h.mean(dim=1))


def main():
    model = TinyEncoder().eval()
    example = torch.randint(0, VOCAB, (4, 48))
    ep = torch.export.export(model, (example,), dynamic_shapes={"ids": {1: Dim("seq", min=2, max=1024)}})
    served = torch.compile(ep.module(), fullgraph=True)
    for seq in (16, 48, 100):
        ids = torch.randint(0, VOCAB, (4, seq))
        with torch.no_grad():
            out = served(ids)
        print(f"seq={seq} pred={out.argmax(-1).tolist()}")


if __name__ == "__main__":
    main()
