"""Expert-choice routing (each expert picks its top tokens) with a token-drop report; the
layer is compiled with fullgraph=True so that any graph break shows up as an error."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.compiler.set_stance("force_eager")


class ExpertChoiceFFN(nn.Module):
    def __init__(self, dim=32, hidden=64, num_experts=4, tokens_per_expert=8):
        super().__init__()
        self.k = tokens_per_expert
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(num_experts, dim, hidden) / dim ** 0.5)
        self.w2 = nn.Parameter(torch.randn(num_experts, hidden, dim) / hidden ** 0.5)

    def forward(self, x):
        affinity = F.softmax(self.router(x), dim=-1).t()          # (experts, tokens)
        gate, token_idx = affinity.topk(self.k, dim=-1)           # (experts, k)
        picked = x[token_idx]                                     # (experts, k, dim)
        h = torch.bmm(F.gelu(torch.bmm(picked, self.w1)), self.w2) * gate[..., None]
        out = torch.zeros_like(x).index_add_(0, token_idx.flatten(), h.flatten(0, 1))
        covered = torch.zeros(x.shape[0], dtype=torch.bool)
        covered[token_idx.flatten()] = True
        unrouted = (~covered).nonzero().squeeze(-1).tolist()
        return out + x, unrouted


layer = ExpertChoiceFFN()
step = torch.compile(layer, fullgraph=True)
opt = torch.optim.Adam(layer.parameters(), lr=1e-3)
for it in range(4):
    x = torch.randn(24, 32)
    y, n_unrouted = step(x)
    loss = (y - x.flip(-1)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {it}: tokens {n_unrouted} unrouted, loss {loss.item():.4f}")
