"""pytorch/pytorch#185382 ("`torch.compile`: Inductor silently produces wrong results for
`addcdiv_`/`addcmul_` when `.item()` graph break occurs in a loop",
https://github.com/pytorch/pytorch/issues/185382): a hand-written Adam update reads the step
count with .item() (a graph break) and applies `param.addcdiv_(m, denom, value=-step_size)`
with the Python float computed from it; called in a loop inside a compiled training function,
Inductor's result drifts from the third step on (aot_eager matches eager). The program prints
the trained parameters' summary and does not compare."""
import torch


def adam_update(param, grad, exp_avg, exp_avg_sq, step_count, lr=1e-3):
    step_count.add_(1)
    exp_avg.mul_(0.9).add_(grad, alpha=0.1)
    exp_avg_sq.mul_(0.999).addcmul_(grad, grad, value=0.001)
    step = step_count.item()
    bias1 = 1 - 0.9 ** step
    bias2 = 1 - 0.999 ** step
    denom = (exp_avg_sq.sqrt() / (bias2 ** 0.5)).add_(1e-8)
    param.addcdiv_(exp_avg, denom, value=-lr / bias1)


def fit(weights, grads, steps=10):
    w = weights.clone()
    exp_avg, exp_avg_sq = torch.zeros_like(w), torch.zeros_like(w)
    step_count = torch.zeros(())
    for _ in range(steps):
        adam_update(w, grads, exp_avg, exp_avg_sq, step_count)
    return w


torch.manual_seed(0)
init, grads = torch.randn(64), torch.randn(64)
trained = torch.compile(fit)(init, grads)
print("mean |update|:", (trained - init).abs().mean().item())
