"""Training loop whose step function carries its own Dynamo settings.

The step reads the loss as a Python float (for the running log) and the author
wanted Dynamo to capture that .item() instead of breaking, so the settings were
attached to the step with torch._dynamo.config.patch used as a decorator, and
the decorated step was then compiled.  Traceable config patching inside a
compiled region is pytorch/pytorch#150586 (2025, "context manager/decorator for
dynamo config patching during tracing"); config.patch itself is not one of the
context managers Dynamo can enter.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(32, 64), nn.SiLU(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()


@torch._dynamo.config.patch(capture_scalar_outputs=True)
def train_step(x, y):
    pred = model(x)
    loss = loss_fn(pred, y)
    scale = loss.item()
    return loss, scale


compiled_step = torch.compile(train_step)


def main():
    w_true = torch.randn(32, 1)
    history = []
    for step in range(12):
        x = torch.randn(16, 32)
        y = x @ w_true + 0.1 * torch.randn(16, 1)
        opt.zero_grad(set_to_none=True)
        loss, scale = compiled_step(x, y)
        loss.backward()
        opt.step()
        history.append(scale)
        if step % 4 == 0:
            print(f"step {step:2d} loss {loss.item():.4f}")
    print(f"final loss {history[-1]:.4f} (first {history[0]:.4f})")


if __name__ == "__main__":
    main()
