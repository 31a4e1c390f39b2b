# A warmup-then-cosine learning-rate schedule written as a Python generator,
# consumed with next() inside a hand-written SGD step compiled with fullgraph=True.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)


def lr_schedule(base_lr, warmup, total):
    for step in range(total):
        if step < warmup:
            yield base_lr * (step + 1) / warmup
        else:
            yield 0.5 * base_lr * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))


model = nn.Linear(8, 1)
params = list(model.parameters())
sched = iter(tuple(lr_schedule(0.1, warmup=2, total=6)))


@torch.compile(fullgraph=True)
def sgd_step(grads, sched):
    lr = next(sched)
    with torch.no_grad():
        for p, g in zip(params, grads):
            p.sub_(lr * g)


x = torch.randn(32, 8)
y = x.sum(1, keepdim=True)
for step in range(6):
    loss = (model(x) - y).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    sgd_step(grads, sched)
    print(f"step {step} loss {loss.item():.4f}")
