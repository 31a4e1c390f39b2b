"""A linear regression trained by hand: the compiled loss logs each evaluation (logging to
stdout) and keeps a history of the loss values in a global list, which the loop reports."""
import logging
import sys

import torch

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
history = []


@torch.compile
def loss_fn(w, b, x, y):
    pred = x @ w + b
    loss = torch.mean((pred - y) ** 2)
    log.info("loss on a batch of %d", x.shape[0])
    history.append(loss.detach())
    return loss


torch.manual_seed(0)
true_w = torch.randn(8, 1)
w = torch.zeros(8, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(10):
    x = torch.randn(64, 8)
    y = x @ true_w + 0.5
    loss = loss_fn(w, b, x, y)
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
print("losses recorded:", len(history))
print("first/last loss:", round(history[0].item(), 5), round(history[-1].item(), 5))
print("b:", round(b.item(), 5))
