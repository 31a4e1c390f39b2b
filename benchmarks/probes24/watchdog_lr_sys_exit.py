"""Hand-written training loop with a compiled parameter update and a cosine LR schedule
passed as a Python float, plus a step-time watchdog callback (as in a Lightning-style
Trainer) that aborts the job with sys.exit(3) when a step after warm-up is over budget.
Each new lr is a constant of the compiled graph, so every step recompiles, and the watchdog
fires on the first step after warm-up."""
import math
import sys
import time

import torch
import torch.nn as nn


class StepTimeWatchdog:
    def __init__(self, budget_s, warmup_steps):
        self.budget_s = budget_s
        self.warmup_steps = warmup_steps

    def on_step_end(self, step, seconds):
        if step >= self.warmup_steps and seconds > self.budget_s:
            print(f"watchdog: step {step} took {seconds:.2f}s > {self.budget_s}s, aborting")
            sys.exit(3)


@torch.compile
def apply_update(params, grads, lr):
    for p, g in zip(params, grads):
        p.add_(g, alpha=-lr)


model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
params = list(model.parameters())
watchdog = StepTimeWatchdog(budget_s=0.5, warmup_steps=3)
total_steps = 50
for step in range(total_steps):
    t0 = time.perf_counter()
    x, y = torch.randn(64, 32), torch.randn(64, 1)
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, params)
    lr = 0.05 * 0.5 * (1 + math.cos(math.pi * step / total_steps))
    with torch.no_grad():
        apply_update(params, grads, lr)
    watchdog.on_step_end(step, time.perf_counter() - t0)
print("trained", loss.item())
