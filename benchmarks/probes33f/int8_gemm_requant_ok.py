# Integer-only inference of a two-layer MLP: int8 weights and activations,
# int32 accumulation, fixed-point requantization back to int8 between layers.
import torch
import torch.nn as nn

torch.manual_seed(0)


def quantize(t, scale):
    return torch.clamp(torch.round(t / scale), -128, 127).to(torch.int8)


def int8_linear(x_q, w_q, bias_q, multiplier):
    acc = x_q.to(torch.int32) @ w_q.to(torch.int32).t() + bias_q
    return torch.clamp(torch.round(acc.to(torch.float32) * multiplier), -128, 127).to(torch.int8)


@torch.compile
def int8_mlp(x_q, params):
    (w1, b1, m1), (w2, b2, m2) = params
    h = torch.clamp_min(int8_linear(x_q, w1, b1, m1), 0)
    return int8_linear(h, w2, b2, m2)


fc1, fc2 = nn.Linear(32, 64), nn.Linear(64, 10)
x = torch.randn(256, 32)
with torch.no_grad():
    h_ref = torch.relu(fc1(x))
    out_ref = fc2(h_ref)
    sx, sh, so = x.abs().max() / 127, h_ref.abs().max() / 127, out_ref.abs().max() / 127
    s1, s2 = fc1.weight.abs().max() / 127, fc2.weight.abs().max() / 127
    params = (
        (quantize(fc1.weight, s1), torch.round(fc1.bias / (sx * s1)).to(torch.int32), (sx * s1 / sh).item()),
        (quantize(fc2.weight, s2), torch.round(fc2.bias / (sh * s2)).to(torch.int32), (sh * s2 / so).item()),
    )
for batch in range(3):
    xb = x[batch * 64:(batch + 1) * 64]
    out_q = int8_mlp(quantize(xb, sx), params)
    out = out_q.to(torch.float32) * so
    ref = out_ref[batch * 64:(batch + 1) * 64]
    agree = (out.argmax(1) == ref.argmax(1)).float().mean().item()
    print(f"batch {batch}: int8 vs fp32 max err {(out - ref).abs().max().item():.4f}  top-1 agreement {agree:.3f}")
