# Safe normalisation + a fixed-count Newton iteration for 1/sqrt(s) with torch.cond and
# while_loop (tensor predicates), compiled with fullgraph=True and compared with eager.
import torch
from torch._higher_order_ops import while_loop

torch.manual_seed(0)


def rsqrt_newton(s):
    y0 = torch.ones_like(s)

    def cond_fn(i, y):
        return i < 8

    def body_fn(i, y):
        return i + 1, y * (1.5 - 0.5 * s * y * y)

    _, y = while_loop(cond_fn, body_fn, (torch.tensor(0), y0))
    return y


def normalise(x):
    s = (x * x).mean(-1, keepdim=True)
    big = s.max() > 4.0
    x = torch.cond(big, lambda x: x / x.abs().amax(), lambda x: x.clone(), (x,))
    s = (x * x).mean(-1, keepdim=True).clamp(0.25, 2.0)
    return x * rsqrt_newton(s)


cnorm = torch.compile(normalise, fullgraph=True)
for scale in (0.5, 1.0, 4.0):
    x = torch.randn(4, 8) * scale
    ref, out = normalise(x), cnorm(x)
    print(f"scale {scale}: row rms {[round(v, 4) for v in out.pow(2).mean(-1).sqrt().tolist()[:2]]} "
          f"maxdiff ok={(ref - out).abs().max().item() < 1e-5}")
