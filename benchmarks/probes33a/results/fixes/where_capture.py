"""Sparse mixture-of-experts feed-forward (Mixtral-style top-2 routing) served for a batch of
short prompts; the MoE block is compiled."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)


class SparseMoE(nn.Module):
    def __init__(self, dim=64, hidden=128, num_experts=8, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim))
            for _ in range(num_experts))

    def forward(self, x):
        b, t, d = x.shape
        h = x.reshape(-1, d)
        probs = F.softmax(self.gate(h), dim=-1)
        weights, chosen = torch.topk(probs, self.top_k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(h)
        expert_mask = F.one_hot(chosen, len(self.experts)).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            slot, token = torch.where(expert_mask[e])
            y = expert(h[token]) * weights[token, slot, None]
            out.index_add_(0, token, y)
        return out.reshape(b, t, d)


moe = SparseMoE().eval()
compiled = torch.compile(moe)
with torch.no_grad():
    for i in range(4):
        prompts = torch.randn(2, 16, 64)
        y = compiled(prompts)
        print(f"batch {i}: out norm {y.norm():.4f}")
