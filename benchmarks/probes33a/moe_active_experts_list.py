"""Top-1 MoE inference where the router runs first and only the experts that received tokens
are evaluated; the expert pass is the compiled hot path."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_EXPERTS, DIM = 8, 32

router = nn.Linear(DIM, NUM_EXPERTS)
experts = nn.ModuleList(
    nn.Sequential(nn.Linear(DIM, 64), nn.GELU(), nn.Linear(64, DIM)) for _ in range(NUM_EXPERTS))


@torch.compile
def run_experts(x, expert_idx, gate, active):
    out = torch.zeros_like(x)
    for e in active:
        mask = (expert_idx == e).unsqueeze(-1)
        out = out + torch.where(mask, experts[e](x), 0.0)
    return out * gate.unsqueeze(-1)


with torch.no_grad():
    for batch in range(10):
        x = torch.randn(6, DIM)
        gate, expert_idx = F.softmax(router(x), dim=-1).max(dim=-1)
        active = expert_idx.unique().tolist()
        y = run_experts(x, expert_idx, gate, active)
        print(f"batch {batch}: experts {active}, out norm {y.norm():.4f}")
