"""Switch-Transformer routing with an expert capacity: each expert takes at most
capacity_factor * tokens / num_experts tokens, the rest are dropped (passed through).
Batches of packed sentences have different total token counts."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SwitchFFN(nn.Module):
    def __init__(self, dim=32, hidden=64, num_experts=4, capacity_factor=1.25):
        super().__init__()
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor
        self.router = nn.Linear(dim, num_experts)
        self.w1 = nn.Parameter(torch.randn(num_experts, dim, hidden) / dim ** 0.5)
        self.w2 = nn.Parameter(torch.randn(num_experts, hidden, dim) / hidden ** 0.5)

    def forward(self, x):
        n_tokens = x.shape[0]
        capacity = math.ceil(self.capacity_factor * n_tokens / self.num_experts)
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert = probs.max(dim=-1)
        onehot = F.one_hot(expert, self.num_experts)
        position = (torch.cumsum(onehot, dim=0) - 1) * onehot
        keep = (position < capacity) & (onehot > 0)
        dispatch = F.one_hot(position.sum(-1).clamp(max=capacity - 1), capacity) * keep.any(-1, keepdim=True)
        dispatch = dispatch[:, None, :] * keep[:, :, None]
        expert_in = torch.einsum("tec,td->ecd", dispatch.float(), x)
        expert_out = torch.bmm(F.relu(torch.bmm(expert_in, self.w1)), self.w2)
        y = torch.einsum("tec,ecd->td", dispatch.float(), expert_out)
        dropped = ~keep.any(-1)
        return torch.where(dropped[:, None], x, y * gate[:, None]), dropped.float().mean()


layer = SwitchFFN().eval()
fwd = torch.compile(layer)
with torch.no_grad():
    for step, n in enumerate([96, 120, 88, 132, 104, 76, 140]):
        x = torch.randn(n, 32)
        y, drop_rate = fwd(x)
        print(f"batch {step} tokens {n} dropped {drop_rate.item():.2f} out norm {y.norm():.3f}")
