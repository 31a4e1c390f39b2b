"""Iterative refinement (RAFT-style update loop) at inference.

Correct cousin of refine_region_global_state.py: the nested compile region
takes the iterate and context as arguments instead of reading them from a
module-level dataclass.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


W_h = torch.randn(32, 32) * 0.1
W_c = torch.randn(32, 32) * 0.1


@torch.compiler.nested_compile_region
def refine_step(hidden, context):
    return torch.tanh(hidden @ W_h + context @ W_c) + hidden


class Refiner(nn.Module):
    def __init__(self, d=32, iters=4):
        super().__init__()
        self.encode = nn.Linear(d, d)
        self.iters = iters

    def forward(self, x):
        context = self.encode(x)
        hidden = torch.zeros_like(context)
        for _ in range(self.iters):
            hidden = refine_step(hidden, context)
        return hidden


def main():
    model = Refiner().eval()
    compiled = torch.compile(model, fullgraph=True)
    batches = [torch.randn(8, 32) for _ in range(3)]
    with torch.no_grad():
        for i, x in enumerate(batches):
            out = compiled(x)
            print(f"batch {i}: mean={out.mean().item():.5f} norm={out.norm().item():.4f}")


if __name__ == "__main__":
    main()
