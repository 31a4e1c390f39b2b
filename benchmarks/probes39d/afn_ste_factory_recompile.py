# Random-bit-width quantization-aware training: each step picks a bit width and builds a
# straight-through-estimator autograd.Function for it with a small factory.
import random
import torch


def make_ste(bits):
    levels = 2 ** bits - 1

    class RoundSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.round(x * levels) / levels

        @staticmethod
        def backward(ctx, g):
            return g

    return RoundSTE


class QuantMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 2)
        self.ste = make_ste(8)

    def forward(self, x):
        h = torch.sigmoid(self.fc1(x))
        return self.fc2(self.ste.apply(h))


random.seed(0)
torch.manual_seed(0)
model = QuantMLP()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cmodel = torch.compile(model)
x, y = torch.randn(16, 8), torch.randn(16, 2)
for step in range(12):
    model.ste = make_ste(random.choice([2, 4, 8]))
    loss = torch.nn.functional.mse_loss(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("final loss", round(loss.item(), 4))
