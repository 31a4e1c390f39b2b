# In-place activation as a custom autograd.Function (memory-saving, inplace-ABN style):
# forward clamps its input in place, marks it dirty and returns the result of clamp_.
import torch


class InplaceLeakyClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, slope):
        ctx.mark_dirty(x)
        ctx.slope = slope
        neg = x < 0
        ctx.save_for_backward(neg)
        x.mul_(torch.where(neg, slope, 1.0))
        x.clamp_(min=-1.0)
        return x

    @staticmethod
    def backward(ctx, g):
        (neg,) = ctx.saved_tensors
        return g * torch.where(neg, ctx.slope, 1.0), None


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        h = InplaceLeakyClamp.apply(self.fc1(x), 0.1)
        return self.fc2(h)


torch.manual_seed(0)
model = MLP()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
cmodel = torch.compile(model)
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
for step in range(3):
    loss = torch.nn.functional.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
