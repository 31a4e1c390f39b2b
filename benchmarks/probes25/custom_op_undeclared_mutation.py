"""A custom op that clamps its input in place to save memory (a C++-extension style kernel
wrapped with torch.library.custom_op) but declares mutates_args=(); the model reads the
pre-activation again after the op. Eager sees the clamped values; the compiled graph, told
the op is pure, may not (torch.library docs: undeclared mutation is undefined behaviour)."""
import torch
import torch.nn as nn


@torch.library.custom_op("probes25::clamp_inplace", mutates_args=())
def clamp_inplace(x: torch.Tensor, bound: float) -> torch.Tensor:
    x.clamp_(-bound, bound)  # in place, to save an allocation
    return x.sum(dim=-1, keepdim=True)


@clamp_inplace.register_fake
def _(x, bound):
    return x.new_empty(x.shape[:-1] + (1,))


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x) * 3.0
        total = clamp_inplace(h, 1.0)
        return h * torch.sigmoid(total)


torch.manual_seed(0)
gate = Gate().eval()
x = torch.randn(8, 16)
with torch.no_grad():
    ref = gate(x)
    out = torch.compile(gate)(x)
print("max abs diff", (out - ref).abs().max().item())
assert torch.allclose(out, ref, atol=1e-5), "compiled output differs from eager"
