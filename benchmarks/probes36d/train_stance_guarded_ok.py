# Compiled training with a logging helper guarded by torch.compiler.is_compiling(), TF32-style
# precision set before compiling, and set_stance("fail_on_recompile") after warm-up to assert
# that later steps do not recompile. Compared with an eager copy.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
eager_model = copy.deepcopy(model)


def log_stats(h):
    if not torch.compiler.is_compiling():
        print("hidden mean", round(h.mean().item(), 4))


def forward(m, x):
    h = m[1](m[0](x))
    log_stats(h)
    return m[2](h)


cforward = torch.compile(forward)
opts = [torch.optim.SGD(m.parameters(), lr=0.05) for m in (model, eager_model)]
xs, ys = torch.randn(4, 16, 10), torch.randn(4, 16, 1)
for step in range(4):
    if step == 1:
        torch.compiler.set_stance("fail_on_recompile")
    losses = []
    for m, opt, fwd in ((model, opts[0], cforward), (eager_model, opts[1], forward)):
        loss = nn.functional.mse_loss(fwd(m, xs[step]), ys[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(step, "compiled", round(losses[0], 5), "eager", round(losses[1], 5))
torch.compiler.set_stance("default")
