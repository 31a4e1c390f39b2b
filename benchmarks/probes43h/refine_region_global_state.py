"""Iterative refinement (RAFT-style update loop) at inference.

The per-iteration update is marked as a nested compile region so it is traced
once and reused; it reads the current iterate from a module-level dataclass
that the loop rebinds each iteration (after pytorch/pytorch#191821).
"""
from dataclasses import dataclass

import torch
import torch.nn as nn

torch.manual_seed(0)


@dataclass
class RefineState:
    hidden: torch.Tensor
    context: torch.Tensor


state = RefineState(torch.zeros(1), torch.zeros(1))
W_h = torch.randn(32, 32) * 0.1
W_c = torch.randn(32, 32) * 0.1


@torch.compiler.nested_compile_region
def refine_step():
    return torch.tanh(state.hidden @ W_h + state.context @ W_c) + state.hidden


class Refiner(nn.Module):
    def __init__(self, d=32, iters=4):
        super().__init__()
        self.encode = nn.Linear(d, d)
        self.iters = iters

    def forward(self, x):
        global state
        context = self.encode(x)
        hidden = torch.zeros_like(context)
        for _ in range(self.iters):
            state = RefineState(hidden, context)
            hidden = refine_step()
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
