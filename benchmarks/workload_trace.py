"""Benchmark workload (b): a real torch.compile program that produces a large TORCH_TRACE log
with many compile ids: many small compiled functions (some with graph breaks, each called at
several shapes so they recompile, then go dynamic), plus a small transformer-ish model with a
graph break in every block, trained for a step (forward and backward graphs).

Run it under TORCH_TRACE=DIR; the size grows with --funcs. The FX-graph cache is left on so
that functions of the same structure skip the C++ compiler (their Dynamo, AOT and Inductor
records, output code included, are still logged), which keeps generation to minutes of CPU.

    TORCH_TRACE=/tmp/trace python workload_trace.py [--funcs N] [--shapes N] [--layers N]
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

OPS = [
    "torch.sin(x) * {c} + torch.cos(x)",
    "torch.relu(x @ x.T) .sum(dim=0) * {c}",
    "F.gelu(x + {c}).softmax(dim=-1)",
    "(x * x + {c}).sqrt().log1p()",
    "torch.tanh(x) - x.mean(dim=-1, keepdim=True) * {c}",
    "F.layer_norm(x, x.shape[-1:]) * {c}",
]

TEMPLATE = """
def fn_{i}(x):
    y = {op}
    y = y + torch.sigmoid(y) * {c}
{brk}    return (y * 2).sum(dim=-1) + {c}
"""


def make_functions(n: int) -> list:
    fns = []
    for i in range(n):
        c = (i % len(OPS)) + 1  # the same graph every len(OPS) functions: FX-cache hits
        op = OPS[i % len(OPS)].format(c=c)
        brk = ("    print('fn_%d', end='\\r')\n    y = torch.exp(-y.abs())\n" % i
               if i % 3 == 0 else "")
        src = TEMPLATE.format(i=i, op=op, c=c, brk=brk)
        ns = {"torch": torch, "F": F}
        exec(compile(src, f"<workload fn_{i}>", "exec"), ns)
        fns.append(ns[f"fn_{i}"])
    return fns


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.fc1(self.ln(x)))
        if x.sum() > 0:  # data-dependent branch: a graph break in every block
            h = h * 0.5
        return x + self.fc2(h)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--funcs", type=int, default=60)
    ap.add_argument("--shapes", type=int, default=3)
    ap.add_argument("--layers", type=int, default=4)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch._dynamo.config.recompile_limit = 64
    torch._dynamo.config.accumulated_recompile_limit = 100000
    for fn in make_functions(args.funcs):
        cfn = torch.compile(fn)
        for s in range(args.shapes):
            cfn(torch.randn(4 + 4 * s, 8 + 8 * s))
    model = nn.Sequential(*[Block(32) for _ in range(args.layers)])
    cmodel = torch.compile(model)
    loss = cmodel(torch.randn(8, 32)).pow(2).mean()
    loss.backward()
    print("done")


if __name__ == "__main__":
    main()
