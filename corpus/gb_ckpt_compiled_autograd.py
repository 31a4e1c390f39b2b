# after probes42d regional_compile_ckpt_ca (blind) and the compiled autograd docs: layers
# compiled one by one (regional compile), torch.utils.checkpoint around them in eager
"""Graph breaks (compiled autograd): the recompute hook of a checkpoint made in eager sits in
the autograd graph, and compiled autograd, tracing the backward, cannot trace it (a skipped
function of torch.utils.checkpoint), so the backward graph breaks at every checkpointed layer,
every step. One cause, at the backward call; the fix is to call checkpoint inside the compiled
region (or run this backward without compiled autograd)."""
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, h):
        return torch.relu(self.fc(h))


torch.manual_seed(0)
blocks = torch.nn.ModuleList(Block() for _ in range(2))
for block in blocks:
    block.compile()

x = torch.randn(4, 8)
for step in range(2):
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False)
    loss = F.mse_loss(h, torch.zeros_like(h))
    with torch._dynamo.compiled_autograd._enable(torch.compile):
        loss.backward()  # <- diagnosis
    print(f"step {step} loss {loss.item():.4f}")
