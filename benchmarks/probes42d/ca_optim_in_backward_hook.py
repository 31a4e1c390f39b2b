"""Optimizer step fused into the backward pass, with compiled autograd.

Follows PyTorch's tutorial "How to save memory by fusing the optimizer step into
the backward pass" (one optimizer per parameter, stepped from a
register_post_accumulate_grad_hook), and turns on compiled autograd as in the
"Compiled Autograd" tutorial (torch._dynamo.config.compiled_autograd = True with
the forward and loss.backward() inside a torch.compile'd train step).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
torch._dynamo.config.compiled_autograd = True


class MLPRegressor(nn.Module):
    def __init__(self, d_in=16, d_hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.GELU(),
            nn.Linear(d_hidden, d_hidden), nn.GELU(),
            nn.Linear(d_hidden, 1),
        )

    def forward(self, x):
        return self.net(x)


model = MLPRegressor()
optimizer_dict = {p: torch.optim.AdamW([p], lr=1e-2, foreach=False) for p in model.parameters()}


def optimizer_hook(parameter):
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


for p in model.parameters():
    p.register_post_accumulate_grad_hook(optimizer_hook)


@torch.compile
def train_step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss.detach()


g = torch.Generator().manual_seed(1)
w_true = torch.randn(16, 1, generator=g)
data = [torch.randn(64, 16, generator=g) for _ in range(4)]
for epoch in range(3):
    total = 0.0
    for x in data:
        y = torch.tanh(x @ w_true)
        total += train_step(x, y).item()
    print(f"epoch {epoch} loss {total / len(data):.5f}")

with torch.no_grad():
    x = data[0]
    print(f"final fit mse {nn.functional.mse_loss(model(x), torch.tanh(x @ w_true)).item():.5f}")
