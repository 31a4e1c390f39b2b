"""Sampling harness that sweeps the softmax temperature of a compiled scorer.

The harness copies the inference setting from facebookresearch/fairchem#2109
(2026, "Specialize float scalars in dynamo to cut cold-compile"):
torch._dynamo.config.specialize_float = True.  With it, every distinct Python
float passed to the compiled function is a constant guarded by value, the
recompiles pytorch/pytorch#149406 (2025, "Recompiles due to Python float
object") reports, until the recompile limit sends the function to eager.
"""
import torch
import torch.nn as nn

torch._dynamo.config.specialize_float = True

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self, vocab=64, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.proj = nn.Linear(d, vocab)

    def forward(self, tokens, temperature):
        h = self.emb(tokens).mean(1)
        logits = self.proj(h) / temperature
        return torch.softmax(logits, dim=-1)


def main():
    model = Scorer().eval()
    scorer = torch.compile(model)
    tokens = torch.randint(0, 64, (8, 12))
    temps = [1.5 - 0.1 * i for i in range(12)]
    with torch.no_grad():
        for t in temps:
            probs = scorer(tokens, torch.tensor(t))
            ent = -(probs * probs.clamp_min(1e-9).log()).sum(-1).mean()
            print(f"T={t:.2f} entropy={ent.item():.4f}")


if __name__ == "__main__":
    main()
