# Weight-only int8 quantisation of a linear layer (per-output-channel symmetric scale,
# round + clamp to [-127, 127], stored as int8), with a compiled dequant-matmul and a
# uint8 image input normalised inside it. Compared with eager and a float64 reference.
import torch

torch.manual_seed(0)


def quantize_weight(w):
    scale = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-8) / 127.0
    q = torch.clamp(torch.round(w / scale), -127, 127).to(torch.int8)
    return q, scale.squeeze(1)


def int8_linear(img_u8, q, scale, bias):
    x = img_u8.float().div(255.0).sub(0.5).mul(2.0)
    w = q.float() * scale[:, None]
    return torch.relu(x @ w.t() + bias)


w = torch.randn(32, 48) * 0.2
bias = torch.randn(32) * 0.01
q, scale = quantize_weight(w)
compiled = torch.compile(int8_linear)

for step in range(3):
    img = torch.randint(0, 256, (8, 48), dtype=torch.uint8)
    y_e = int8_linear(img, q, scale, bias)
    y_c = compiled(img, q, scale, bias)
    x64 = img.double().div(255.0).sub(0.5).mul(2.0)
    y64 = torch.relu(x64 @ w.double().t() + bias.double())
    print(step, f"compiled-eager {(y_c - y_e).abs().max().item():.2e}",
          f"quant err {(y_c.double() - y64).abs().max().item():.3f}")
