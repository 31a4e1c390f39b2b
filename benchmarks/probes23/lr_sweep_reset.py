"""A learning-rate sweep harness: each trial resets Dynamo (torch._dynamo.reset(), as
sweep and benchmark scripts do so that trials do not share compiled code), sets the module
global LR and trains a small regressor with a compiled SGD step. LR is a Python float the
step reads, so it is a constant inside each trial's graph: every trial's graph differs and
Inductor's FX graph cache misses after each reset, a full compile per trial (issue 29
section 5, compile identity and cache misses across torch._dynamo.reset())."""
import torch

torch.manual_seed(0)
LR = 0.1
X = torch.randn(64, 8)
TRUE_W = torch.randn(8, 1)
Y = X @ TRUE_W + 0.01 * torch.randn(64, 1)


def sgd_step(w, x, y):
    pred = x @ w
    grad = 2 * x.t() @ (pred - y) / x.shape[0]
    new_w = w - LR * grad
    return new_w, ((pred - y) ** 2).mean()


def run_trial(lr, steps=20):
    global LR
    torch._dynamo.reset()
    LR = lr
    step = torch.compile(sgd_step)
    w = torch.zeros(8, 1)
    for _ in range(steps):
        w, loss = step(w, X, Y)
    return float(loss)


for lr in (0.1, 0.03, 0.01):
    print(f"lr={lr} final loss {run_trial(lr):.5f}")
