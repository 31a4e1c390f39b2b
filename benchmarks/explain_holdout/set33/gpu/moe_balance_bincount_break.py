"""A top-1 mixture-of-experts MLP trained on CUDA under bf16 autocast, the whole model
compiled. The load-balancing loss counts the tokens routed to each expert with
torch.bincount(expert, minlength=E). bincount's output length depends on the largest value in
the data (minlength is only a lower bound), so Dynamo cannot trace it ("Dynamic shape
operator" aten.bincount) and breaks the graph at that line on every step, with a host sync.
The fix: count with a fixed-size op, F.one_hot(expert, E).sum(0) or
torch.zeros(E).scatter_add_(0, expert, ones), which Inductor compiles."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda"
torch.manual_seed(0)
D, E, C = 128, 8, 10


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E)
        self.w1 = nn.Parameter(torch.randn(E, D, 2 * D) * D ** -0.5)
        self.w2 = nn.Parameter(torch.randn(E, 2 * D, D) * (2 * D) ** -0.5)
        self.head = nn.Linear(D, C)

    def forward(self, x):
        probs = self.gate(x).float().softmax(-1)
        expert = probs.argmax(-1)
        counts = torch.bincount(expert, minlength=E)
        aux = E * (counts.float() / x.shape[0] * probs.mean(0)).sum()
        h = torch.bmm(x[:, None], self.w1[expert]).relu()
        y = x + torch.bmm(h, self.w2[expert])[:, 0] * probs.amax(-1, keepdim=True)
        return self.head(y), aux


model = MoE().to(device)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
X, Y = torch.randn(1024, D, device=device), torch.randint(0, C, (1024,), device=device)
for step in range(16):
    x, y = X[step % 4 * 256:step % 4 * 256 + 256], Y[step % 4 * 256:step % 4 * 256 + 256]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits, aux = cmodel(x)
    loss = F.cross_entropy(logits.float(), y) + 0.01 * aux
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {loss.item():.3f} aux {aux.item():.3f}")
