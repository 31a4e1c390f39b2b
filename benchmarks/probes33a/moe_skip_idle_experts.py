"""Top-2 MoE layer for a small token classifier. Data-dependent shapes are enabled so the
token dispatch (nonzero / index_select / index_add_) can be traced; experts that receive no
token in a batch are skipped to save their matmuls."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)


class TopTwoMoE(nn.Module):
    def __init__(self, dim=32, hidden=64, num_experts=6):
        super().__init__()
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))
            for _ in range(num_experts))

    def forward(self, x):
        scores = F.softmax(self.router(x), dim=-1)
        top_w, top_e = scores.topk(2, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            hit = (top_e == e).any(dim=-1)
            idx = hit.nonzero().squeeze(-1)
            if idx.numel() == 0:
                continue
            w = (top_w * (top_e == e)).sum(dim=-1).index_select(0, idx)
            out.index_add_(0, idx, expert(x.index_select(0, idx)) * w[:, None])
        return out


moe = TopTwoMoE()
head = nn.Linear(32, 5)
model = torch.compile(nn.Sequential(moe, head))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x, y = torch.randn(48, 32), torch.randint(0, 5, (48,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
