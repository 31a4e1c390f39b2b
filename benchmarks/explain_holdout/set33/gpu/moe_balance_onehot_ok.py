"""Correct program: a top-1 mixture-of-experts MLP trained on CUDA under bf16 autocast, the
whole model compiled, the loss and optimizer eager. The load-balancing loss counts the tokens
per expert with F.one_hot(expert, E).sum(0): a fixed-size result (E counts) that Inductor
compiles, unlike torch.bincount, whose length depends on the data. One graph for the forward
and one for the backward, no graph break, no recompile, no host sync inside the model;
the same counts as bincount(expert, minlength=E)."""
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
        counts = F.one_hot(expert, E).sum(0)
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
