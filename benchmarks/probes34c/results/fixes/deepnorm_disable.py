"""A 12-layer MLP-mixer style regressor trained with depth-scaled residuals
(DeepNet style). The block is a nested_compile_region, so torch.compile
should trace it once and reuse it for every layer."""
import math
import torch
import torch.nn as nn


@torch.compiler.nested_compile_region
def mixer_block(x, w_in, w_out, residual_scale):
    h = torch.nn.functional.layer_norm(x, x.shape[-1:])
    h = torch.nn.functional.gelu(h @ w_in) @ w_out
    return x + residual_scale * h


class DeepMixer(nn.Module):
    def __init__(self, dim=32, hidden=64, depth=12):
        super().__init__()
        self.w_in = nn.ParameterList([nn.Parameter(torch.randn(dim, hidden) * 0.1) for _ in range(depth)])
        self.w_out = nn.ParameterList([nn.Parameter(torch.randn(hidden, dim) * 0.1) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)

    @torch.compiler.disable
    def forward(self, x):
        for i in range(len(self.w_in)):
            x = mixer_block(x, self.w_in[i], self.w_out[i], 1.0 / math.sqrt(2 * (i + 1)))
        return self.head(x).squeeze(-1)


torch.manual_seed(0)
model = DeepMixer()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 32)
y = x[:, :4].sum(-1)
for step in range(5):
    loss = nn.functional.mse_loss(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
