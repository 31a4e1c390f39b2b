# Monitor per-block output-gradient norms with register_full_backward_hook while training compiled.
import torch
import torch.nn as nn
torch._dynamo.config.compiled_autograd = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.block2 = nn.Sequential(nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        h = self.block1(x)
        h = self.block2(h)
        return self.head(h)


torch.manual_seed(0)
model = Net()
grad_norms = []


def monitor(module, grad_input, grad_output):
    grad_norms.append(grad_output[0].norm().item())


model.block2.register_full_backward_hook(monitor)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    x = torch.randn(16, 8)
    y = torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} block2 grad-out norm {grad_norms[-1]:.4f}")
