"""Train a 3-layer MLP on a synthetic regression task and monitor each layer's output-gradient
norm with module backward hooks, to catch vanishing gradients early."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Linear(24, 96), nn.Tanh(),
    nn.Linear(96, 96), nn.Tanh(),
    nn.Linear(96, 1))
grad_norms = {}


def make_monitor(name):
    def monitor(module, grad_input, grad_output):
        grad_norms.setdefault(name, []).append(grad_output[0].norm().item())
    return monitor


for idx in (0, 2, 4):
    model[idx].register_full_backward_hook(make_monitor(f"linear{idx}"))

cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(10, 64, 24)
Y = (X[..., :4].sum(-1, keepdim=True)).sin()
for step in range(10):
    loss = nn.functional.mse_loss(cmodel(X[step]), Y[step])
    opt.zero_grad()
    loss.backward()
    opt.step()
for name, norms in grad_norms.items():
    print(f"{name}: first {norms[0]:.5f} last {norms[-1]:.5f} over {len(norms)} steps")
print(f"final loss {loss.item():.4f}")
