"""Train a top-1 (switch) MoE layer on a toy regression task. Tokens are sorted by expert and
split into one contiguous group per expert, the way grouped-GEMM MoE kernels lay them out."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GroupedSwitchFFN(nn.Module):
    def __init__(self, dim=32, hidden=64, num_experts=4):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.w_in = nn.Parameter(torch.randn(num_experts, dim, hidden) * dim ** -0.5)
        self.w_out = nn.Parameter(torch.randn(num_experts, hidden, dim) * hidden ** -0.5)

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert_idx = probs.max(dim=-1)
        order = torch.argsort(expert_idx)
        tokens_per_expert = F.one_hot(expert_idx, self.num_experts).sum(0)
        groups = torch.split(x[order], tokens_per_expert.tolist())
        outs = [F.gelu(g @ self.w_in[e]) @ self.w_out[e] for e, g in enumerate(groups)]
        y = torch.empty_like(x)
        y[order] = torch.cat(outs)
        return y * gate[:, None]


layer = GroupedSwitchFFN()
step_fn = torch.compile(layer)
opt = torch.optim.Adam(layer.parameters(), lr=3e-3)
target = nn.Linear(32, 32)
for step in range(6):
    x = torch.randn(128, 32)
    loss = F.mse_loss(step_fn(x), target(x).detach())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
