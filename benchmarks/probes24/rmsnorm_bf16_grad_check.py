"""A bf16 RMSNorm + MLP layer; the author checks that torch.compile gives the same
gradients as eager before switching the training job to it (pytorch #158699: compiled
RMSNorm numerics differ from eager). Inductor computes the fused bf16 chain in float32 and
rounds once, eager rounds after every op, so the gradients differ by bf16 rounding and the
author's exact-match check fails."""
import copy

import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + self.eps) * self.weight


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = RMSNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.silu(self.up(self.norm(x))))


torch.manual_seed(0)
eager = Layer(256).to(torch.bfloat16)
compiled_layer = copy.deepcopy(eager)
compiled = torch.compile(compiled_layer)
x = torch.randn(8, 128, 256, dtype=torch.bfloat16)

eager(x).float().pow(2).mean().backward()
compiled(x).float().pow(2).mean().backward()

g_e = eager.norm.weight.grad.float()
g_c = compiled_layer.norm.weight.grad.float()
print("max |grad diff| of norm.weight:", (g_e - g_c).abs().max().item())
assert torch.equal(g_e, g_c), "compiled gradients differ from eager"
print("gradients match")
