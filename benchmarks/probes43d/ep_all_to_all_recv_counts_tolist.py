"""Expert-parallel MoE token dispatch on 2 ranks (gloo), torchrun --nproc-per-node 2.

Each rank owns 2 of 4 experts.  Tokens are routed top-1, sorted by expert, and
exchanged with all_to_all_single; the split sizes come from an all_to_all of the
per-rank send counts (the pattern used by torchtitan / DeepSpeed-MoE dispatch).
"""
import datetime

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
RANK, WORLD = dist.get_rank(), dist.get_world_size()
N_EXPERTS, HIDDEN, TOKENS = 4, 16, 24
E_PER_RANK = N_EXPERTS // WORLD
torch.manual_seed(0)


class ExpertParallelMoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(HIDDEN, N_EXPERTS, bias=False)
        self.experts = nn.ModuleList(nn.Linear(HIDDEN, HIDDEN) for _ in range(E_PER_RANK))

    def forward(self, x):
        expert_ids = self.router(x).argmax(dim=-1)
        order = torch.argsort(expert_ids, stable=True)
        x_sorted = x[order]
        dest_rank = expert_ids[order] // E_PER_RANK
        send_counts = (dest_rank.unsqueeze(1) == torch.arange(WORLD)).sum(0)
        recv_counts = funcol.all_to_all_single(send_counts, None, None, dist.group.WORLD)
        recv = funcol.all_to_all_single(
            x_sorted, recv_counts.tolist(), send_counts.tolist(), dist.group.WORLD
        )
        # every received token goes through this rank's first expert, then the second (toy)
        y = self.experts[1](torch.relu(self.experts[0](recv)))
        back = funcol.all_to_all_single(
            y, send_counts.tolist(), recv_counts.tolist(), dist.group.WORLD
        )
        out = torch.empty_like(back)
        out[order] = back
        return out


torch.manual_seed(0)
moe = ExpertParallelMoE()
compiled = torch.compile(moe)
with torch.no_grad():
    for step in range(4):
        g = torch.Generator().manual_seed(100 * step + RANK)
        x = torch.randn(TOKENS, HIDDEN, generator=g)
        y = compiled(x)
        print(f"rank {RANK} step {step}: out sum {y.sum().item():.4f}")

dist.destroy_process_group()
