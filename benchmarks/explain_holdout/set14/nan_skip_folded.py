"""pytorch/pytorch#198070 ("[dynamic shapes] With `capture_scalar_outputs=True`, the NaN check
`v != v` on `v = loss.item()` is folded to `False` at trace time", open): the loss read with
.item() becomes an unbacked SymFloat that the tracer simplifies as a finite real, so the standard
`x != x` NaN test is False while tracing and the compiled step never takes the skip branch. Here:
a hand-written SGD step that skips the update when the batch's loss is NaN; one batch has a NaN
target, eager skips it, the compiled step writes NaN into the weights."""
import torch

torch._dynamo.config.capture_scalar_outputs = True


def sgd_step(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    v = loss.item()
    if v != v:
        return w, v
    grad = 2 * x.t() @ (x @ w - y) / x.shape[0]
    return w - lr * grad, v


torch.manual_seed(0)
w = torch.zeros(4, 1)
step = torch.compile(sgd_step)
for i in range(4):
    x = torch.randn(8, 4)
    y = x.sum(dim=1, keepdim=True)
    if i == 2:
        y[3] = float("nan")
    w, loss = step(w, x, y, 0.1)
    print(f"step {i}: loss {loss:.4f}, weights finite: {bool(torch.isfinite(w).all())}")
