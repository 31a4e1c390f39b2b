"""Tabular risk scorer served on CPU with torch.compile.

The deployment config pins Inductor's -march to the production fleet's CPU
(AMD Zen 5) so that the generated C++ kernels use its full instruction set.
The same script is run on a dev box whose g++ is older.
Source pattern: users setting torch._inductor.config.cpp.march
(TORCHINDUCTOR_CPP_MARCH) and meeting CppCompileError, cf. pytorch/pytorch
issues #179135 / #152172 (CppCompileError on CPU) and the cpp.march option
in torch/_inductor/config.py.
"""
import torch
import torch.nn as nn
import torch._inductor.config as inductor_config

# tuned for the production fleet (copied from the build-box config)
inductor_config.cpp.march = "znver5"


class RiskScorer(nn.Module):
    def __init__(self, n_features=32, hidden=64):
        super().__init__()
        self.norm = nn.LayerNorm(n_features)
        self.body = nn.Sequential(
            nn.Linear(n_features, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
        )
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(self.norm(x))
        return torch.sigmoid(self.head(h)).squeeze(-1)


def make_batches(n_batches=3, batch=64, n_features=32):
    g = torch.Generator().manual_seed(1)
    return [torch.randn(batch, n_features, generator=g) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    model = RiskScorer().eval()
    scorer = torch.compile(model)
    flagged = 0
    with torch.no_grad():
        for i, batch in enumerate(make_batches()):
            scores = scorer(batch)
            flagged += int((scores > 0.5).sum())
            print(f"batch {i}: mean score {scores.mean().item():.4f}")
    print(f"flagged {flagged} rows")


if __name__ == "__main__":
    main()
