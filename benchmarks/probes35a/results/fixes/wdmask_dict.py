# SGD with momentum written by hand in a compiled step: global-norm clipping, and weight
# decay skipped for biases and norm weights via a set of "no decay" parameters.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.Tanh(), nn.Linear(16, 1))
no_decay = {p: True for n, p in model.named_parameters() if n.endswith("bias") or p.ndim == 1}
bufs = {p: torch.zeros_like(p) for p in model.parameters()}
lr_t = torch.tensor(0.05)


@torch.compile
def sgd_step(params):
    torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    for p in params:
        g = p.grad
        if p not in no_decay:
            g = g.add(p, alpha=1e-2)
        buf = bufs[p]
        buf.mul_(0.9).add_(g)
        p.sub_(lr_t * buf)


x, y = torch.randn(32, 8), torch.randn(32, 1)
params = list(model.parameters())
for it in range(6):
    loss = F.mse_loss(model(x), y)
    model.zero_grad(set_to_none=True)
    loss.backward()
    with torch.no_grad():
        sgd_step(params)
    lr_t.fill_(0.05 * 0.8 ** it)
    print(f"it {it} loss {loss.item():.5f}")
