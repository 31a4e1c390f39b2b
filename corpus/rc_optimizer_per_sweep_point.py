"""Recompile (identity): a learning-rate sweep makes a fresh model and optimizer for each
point, on purpose, and calls a compiled optimizer step several times with each. Dynamo guards
the optimizer by identity, so every new one compiles again until the recompile limit; the fix
is `torch.compiler.reset()` after making each, not "create it once"."""
import torch
import torch.nn as nn


@torch.compile(backend="eager")
def apply_update(opt):
    opt.step()


x, y = torch.randn(32, 8), torch.randn(32, 1)
for lr in [0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 3e-4, 1e-4, 3e-5, 1e-5]:
    model = nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    step = 0
    while step < 3:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        apply_update(opt)  # <- diagnosis
        step += 1
    print(f"lr {lr:g}: loss {loss.item():.3f}")
