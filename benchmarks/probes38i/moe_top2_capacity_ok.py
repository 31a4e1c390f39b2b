# Top-2 MoE layer with a fixed expert capacity (GShard-style): position-in-expert by a
# cumsum over one-hot routing masks, tokens past capacity dropped, load-balancing loss
# from the one-hot masks. Static shapes throughout; compiled vs eager training steps.
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
E, D, T, K, CAP = 4, 16, 32, 2, 12


class Top2MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(D, E, bias=False)
        self.w1 = nn.Parameter(torch.randn(E, D, 32) * 0.1)
        self.w2 = nn.Parameter(torch.randn(E, 32, D) * 0.1)

    def forward(self, x):
        probs = F.softmax(self.router(x), -1)
        gate, idx = torch.topk(probs, K, dim=-1)                        # [T, K]
        mask = F.one_hot(idx, E).float()                                # [T, K, E]
        pos = torch.cumsum(mask.flatten(0, 1), 0).view(T, K, E) * mask - 1
        mask = mask * (pos < CAP).float()                               # drop past capacity
        combine = (gate[..., None] * mask).sum(1)                       # [T, E]
        h = F.gelu(torch.einsum("td,edh->teh", x, self.w1))
        y = torch.einsum("teh,ehd->ted", h, self.w2)
        aux = E * (mask.sum(1).mean(0) * probs.mean(0)).sum()
        return x + (combine[..., None] * y).sum(1), aux


eager = Top2MoE()
comp = copy.deepcopy(eager)
cfn = torch.compile(comp)
opt_e = torch.optim.SGD(eager.parameters(), lr=0.1)
opt_c = torch.optim.SGD(comp.parameters(), lr=0.1)
x, tgt = torch.randn(T, D), torch.randn(T, D)
for step in range(3):
    losses = []
    for fn, opt in [(eager, opt_e), (cfn, opt_c)]:
        y, aux = fn(x)
        loss = F.mse_loss(y, tgt) + 0.01 * aux
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(f"step {step} eager {losses[0]:.5f} compiled {losses[1]:.5f} match {abs(losses[0] - losses[1]) < 1e-4}")
print("max weight diff <1e-4:", max((a - b).abs().max().item() for a, b in zip(eager.parameters(), comp.parameters())) < 1e-4)
