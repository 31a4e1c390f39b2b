# Post-training quantisation of an activation with the legacy quantized-tensor API,
# compiled with fullgraph=True so the whole preprocessing step is one graph
# (pattern from eager-mode quantisation tutorials: quantize_per_tensor + int_repr to get
# the uint8 codes that are stored).
import torch

torch.manual_seed(0)

SCALE, ZERO_POINT = 0.05, 128


@torch.compile(fullgraph=True)
def encode(x):
    x = torch.tanh(x) * 4.0
    codes = torch.clamp(torch.round(x / SCALE) + ZERO_POINT, 0, 255).to(torch.uint8)
    return codes, (codes.float() - ZERO_POINT) * SCALE


def decode(codes):
    return (codes.float() - ZERO_POINT) * SCALE


x = torch.randn(4, 32)
codes, deq = encode(x)
print("codes", codes.dtype, codes[0, :8].tolist())
print("roundtrip max err", f"{(decode(codes) - deq).abs().max().item():.6f}")
print("quant error", f"{(deq - torch.tanh(x) * 4.0).abs().max().item():.4f}")
