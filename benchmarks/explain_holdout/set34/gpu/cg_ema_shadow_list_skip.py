# Training with an exponential moving average (EMA) of the weights, as in
# timm's ModelEmaV3: the EMA shadow copies live in a plain Python list and the
# update is a compiled foreach lerp, with mode="reduce-overhead" to cut launch
# overhead of the many small per-tensor kernels.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda"

model = nn.Sequential(
    nn.Linear(128, 512), nn.GELU(), nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 10)
).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
ema_shadow = [p.detach().clone() for p in model.parameters()]
EMA_DECAY = 0.99


@torch.compile(mode="reduce-overhead")
def ema_update(shadow, params):
    torch._foreach_lerp_(shadow, params, 1.0 - EMA_DECAY)


def evaluate(weights, x, y):
    w = list(weights)
    h = nn.functional.gelu(x @ w[0].T + w[1])
    h = nn.functional.gelu(h @ w[2].T + w[3])
    return nn.functional.cross_entropy(h @ w[4].T + w[5], y).item()


x_all = torch.randn(2048, 128, device=device)
y_all = (x_all[:, :10] * 3).argmax(-1)
for step in range(30):
    idx = torch.randint(0, 2048, (256,), device=device)
    loss = nn.functional.cross_entropy(model(x_all[idx]), y_all[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():
        ema_update(ema_shadow, list(model.parameters()))
    if step % 10 == 9:
        print(f"step {step}: loss {loss.item():.4f}")

print(f"eval loss  model {evaluate(model.parameters(), x_all, y_all):.4f}"
      f"  ema {evaluate(ema_shadow, x_all, y_all):.4f}")
