"""Optional bf16 autocast entered through contextlib.ExitStack in a compiled train step (blind probe 47c).

After pytorch/pytorch#109309 (contexts entered through `contextlib.ExitStack` inside compiled code;
the corpus's gb_exit_stack_no_grad shows it for no_grad) and the training-loop idiom of building
precision plugins in Lightning/accelerate do. Dynamo cannot run autocast's `__enter__` called by
ExitStack: "setattr() is not supported on type autocast" (autocast_mode.py:314, prev_cache_enabled),
then "Graph break under GenericContextWrappingVariable"; Dynamo skips the whole compiled
loss function and runs it in eager at every step.
"""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
USE_AMP = True

model = nn.Sequential(
    nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 10)
)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def compute_loss(x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=USE_AMP):
        logits = model(x)
    return F.cross_entropy(logits.float(), y)


compiled_loss = torch.compile(compute_loss)
x = torch.randn(128, 64)
y = torch.randint(0, 10, (128,))
for step in range(8):
    loss = compiled_loss(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss after 8 steps: {loss.item():.4f}")
