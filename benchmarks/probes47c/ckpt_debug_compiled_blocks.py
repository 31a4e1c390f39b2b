"""Activation checkpointing with debug=True inside a compiled model (blind probe 47c).

After the torch.utils.checkpoint docs (`debug`: "If True, error messages will also include a trace
of the operators ran during the original forward computation as well as the recomputation") and
timm's `checkpoint_seq`/`grad_checkpointing` loop over blocks. PyTorch PRs #175338 and #185285
("Allow debug mode with context_fn in checkpoint()") say checkpoint raises a ValueError when
`debug=True` meets a non-default context_fn. The user passes no context_fn, and eager runs fine;
under torch.compile the checkpoint is traced as the tag_activation_checkpoint higher-order op,
whose run supplies a context_fn of its own, so the first compiled call fails in the backend:
"BackendCompilerFailed: backend='inductor' raised: ValueError: debug=True is incompatible with
non-default context_fn".
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, dim=64, depth=4, num_classes=10):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)
        self.grad_checkpointing = True

    def forward(self, x):
        for blk in self.blocks:
            if self.grad_checkpointing and self.training:
                x = checkpoint(blk, x, use_reentrant=False, debug=True)
            else:
                x = blk(x)
        return self.head(x.mean(1))


model = torch.compile(Net())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
tokens = torch.randn(8, 16, 64)
labels = torch.randint(0, 10, (8,))
for step in range(5):
    loss = F.cross_entropy(model(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
