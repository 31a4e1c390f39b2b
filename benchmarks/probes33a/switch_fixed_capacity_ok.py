"""Switch-Transformer layer trained on fixed-size token batches: static expert capacity,
tokens over capacity are dropped (residual), expert counts from torch.histc feed the
load-balancing loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TOKENS, DIM, EXPERTS = 64, 32, 4


class SwitchLayer(nn.Module):
    def __init__(self, capacity_factor=1.25):
        super().__init__()
        self.capacity = int(capacity_factor * TOKENS / EXPERTS)
        self.router = nn.Linear(DIM, EXPERTS)
        self.w1 = nn.Parameter(torch.randn(EXPERTS, DIM, 64) / DIM ** 0.5)
        self.w2 = nn.Parameter(torch.randn(EXPERTS, 64, DIM) / 8.0)

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, expert = probs.max(dim=-1)
        onehot = F.one_hot(expert, EXPERTS)
        position = ((torch.cumsum(onehot, dim=0) - 1) * onehot).sum(-1)
        kept = position < self.capacity
        slot = F.one_hot(position.clamp(max=self.capacity - 1), self.capacity)
        dispatch = (onehot[:, :, None] * slot[:, None, :] * kept[:, None, None]).float()
        expert_in = torch.einsum("tec,td->ecd", dispatch, x)
        expert_out = torch.bmm(F.gelu(torch.bmm(expert_in, self.w1)), self.w2)
        y = torch.einsum("tec,ecd->td", dispatch, expert_out) * gate[:, None]
        counts = torch.histc(expert.float(), bins=EXPERTS, min=0, max=EXPERTS - 1)
        balance = EXPERTS * (counts / TOKENS * probs.mean(0)).sum()
        return x + y, balance, 1 - kept.float().mean()


layer = SwitchLayer()
compiled = torch.compile(layer)
opt = torch.optim.Adam(layer.parameters(), lr=2e-3)
for step in range(8):
    x = torch.randn(TOKENS, DIM)
    y, balance, dropped = compiled(x)
    loss = F.mse_loss(y, x.flip(-1)) + 0.01 * balance
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} dropped {dropped.item():.3f}")
