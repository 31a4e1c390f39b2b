import torch
import torch.nn as nn

torch.manual_seed(0)

# fit a damped oscillation with a small tanh MLP, full-batch L-BFGS
t = torch.linspace(0.0, 4.0, 256).unsqueeze(1)
y_obs = torch.exp(-0.3 * t) * torch.cos(2.5 * t) + 0.01 * torch.randn_like(t)

model = nn.Sequential(
    nn.Linear(1, 32), nn.Tanh(),
    nn.Linear(32, 32), nn.Tanh(),
    nn.Linear(32, 1),
)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=25,
                              history_size=20, line_search_fn="strong_wolfe")


@torch.compile
def closure():
    optimizer.zero_grad()
    pred = model(t)
    loss = torch.mean((pred - y_obs) ** 2)
    loss.backward()
    return loss


for outer in range(4):
    loss = optimizer.step(closure)
    print(f"outer {outer}: mse {loss.item():.6f}")

with torch.no_grad():
    err = (model(t) - y_obs).abs().max().item()
print(f"max abs error {err:.4f}")
