# A clipped-gradient swish as a torch.autograd.Function with setup_context, trained compiled vs eager.
import copy
import torch
import torch._functorch.config
torch._functorch.config.autograd_cache_allow_custom_autograd_functions = True
import torch.nn as nn


class ClippedSwish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta, clip):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta, clip = inputs
        ctx.save_for_backward(x)
        ctx.beta = beta
        ctx.clip = clip

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.beta * x)
        dx = s + ctx.beta * x * s * (1 - s)
        return (g * dx).clamp(-ctx.clip, ctx.clip), None, None


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(6, 24), nn.Linear(24, 3)

    def forward(self, x):
        return self.l2(ClippedSwish.apply(self.l1(x), 1.5, 0.2))


torch.manual_seed(0)
m_e = MLP()
m_c = copy.deepcopy(m_e)
cm = torch.compile(m_c)
opt_e = torch.optim.SGD(m_e.parameters(), lr=0.1)
opt_c = torch.optim.SGD(m_c.parameters(), lr=0.1)
for step in range(4):
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    for model, opt in ((m_e, opt_e), (cm, opt_c)):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
diff = max((a - b).abs().max().item() for a, b in zip(m_e.parameters(), m_c.parameters()))
print(f"max |param compiled - eager| after 4 steps: {diff:.2e}", "OK" if diff < 1e-5 else "MISMATCH")
