"""Look at what torch.compile captures for a small regression model's training
step, with a custom backend that prints each FX graph and then runs it as is."""
import torch
import torch.nn as nn


def inspect_backend(gm: torch.fx.GraphModule, example_inputs):
    print(f"captured a graph with {len(example_inputs)} inputs:")
    gm.graph.print_tabular()
    return gm.forward


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile(backend=inspect_backend)
def loss_fn(x, y):
    return nn.functional.mse_loss(model(x).squeeze(-1), y)


x = torch.randn(64, 8)
y = x[:, 0] * 2 - x[:, 1]
for step in range(5):
    loss = loss_fn(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
