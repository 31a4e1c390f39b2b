"""Inference loop with a debug helper that should stay out of the graph.

The helper that records activation statistics is decorated with
torch.compiler.set_stance("force_eager"), read as "run this part eagerly", and
it is called from inside the compiled model's forward.  set_stance's own
docstring (pytorch/pytorch#137504, 2024) says it must not be used inside a
torch.compile region; pytorch/pytorch#150355 (2025) hit the same error from
Dynamo tracing into set_stance.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
ACT_LOG = []


@torch.compiler.set_stance("force_eager")
def log_activation(name, t):
    ACT_LOG.append((name, float(t.abs().mean()), float(t.std())))


class Encoder(nn.Module):
    def __init__(self, d=32, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU()) for _ in range(depth)
        )
        self.head = nn.Linear(d, 4)

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            x = x + blk(x)
            log_activation(f"block{i}", x)
        return self.head(x.mean(1))


def main():
    model = Encoder().eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for step in range(3):
            x = torch.randn(4, 10, 32)
            out = compiled(x)
            print(f"step {step}: logits mean {out.mean().item():.4f}")
    print(f"logged {len(ACT_LOG)} activation records")


if __name__ == "__main__":
    main()
