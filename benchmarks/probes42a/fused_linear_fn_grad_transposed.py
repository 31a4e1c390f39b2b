"""A hand-written fused linear + GELU autograd.Function (weight stored as [in, out]) whose
backward returns the weight gradient transposed ([out, in]).

Eager PyTorch raises at `loss.backward()` ("returned an invalid gradient at index 1").
Under torch.compile the backward is traced together with the forward, so the same error
surfaces earlier, at the compiled forward call, wrapped as BackendCompilerFailed. The bug
is the backward's return line.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FusedLinearGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        pre = x @ weight + bias
        ctx.save_for_backward(x, weight, pre)
        return F.gelu(pre)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, pre = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(pre * 0.7071067811865476))
        pdf = torch.exp(-0.5 * pre * pre) * 0.3989422804014327
        g_pre = grad_out * (cdf + pre * pdf)
        grad_x = g_pre @ weight.t()
        grad_w = g_pre.t() @ x
        grad_b = g_pre.sum(0)
        return grad_x, grad_w, grad_b


class FusedMLP(nn.Module):
    def __init__(self, d_in=24, hidden=48, n_cls=5):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(d_in, hidden) / d_in ** 0.5)
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        h = FusedLinearGelu.apply(x, self.w1, self.b1)
        return self.head(h)


model = FusedMLP()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
cmodel = torch.compile(model)
X = torch.randn(256, 24)
Y = (X[:, :5].argmax(-1))

for epoch in range(5):
    for i in range(0, 256, 64):
        logits = cmodel(X[i:i + 64])
        loss = F.cross_entropy(logits, Y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (cmodel(X).argmax(-1) == Y).float().mean()
    print(f"epoch {epoch}: loss {loss.item():.4f} acc {acc:.3f}")
