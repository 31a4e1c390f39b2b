# SGD with Nesterov momentum, a linear-warmup LambdaLR, and an EMA copy of the weights
# updated after every step with torch._foreach_lerp_ (timm ModelEmaV3 style); the model
# is compiled, the EMA copy stays eager and is evaluated every other step.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 1))
ema_model = copy.deepcopy(model).requires_grad_(False)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
warmup = 4
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))

x = torch.randn(128, 6)
y = (x ** 2).sum(1, keepdim=True) - 3.0
ema_params = list(ema_model.parameters())
for step in range(8):
    pred = cmodel(x)
    loss = nn.functional.smooth_l1_loss(pred, y, beta=0.5)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    sched.step()
    decay = min(0.99, (1 + step) / (10 + step))
    with torch.no_grad():
        torch._foreach_lerp_(ema_params, [p.detach() for p in model.parameters()], 1.0 - decay)
    msg = f"step {step} lr {sched.get_last_lr()[0]:.4f} loss {loss.item():.4f}"
    if step % 2 == 1:
        with torch.no_grad():
            ema_loss = nn.functional.smooth_l1_loss(ema_model(x), y, beta=0.5)
        msg += f" ema_loss {ema_loss.item():.4f}"
    print(msg)
final = cmodel(x)
with torch.no_grad():
    print("compiled forward matches eager:", torch.allclose(final.detach(), model(x), atol=1e-5))
