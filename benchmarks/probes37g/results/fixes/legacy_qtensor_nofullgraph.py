# Post-training quantisation of an activation with the legacy quantized-tensor API,
# compiled with fullgraph=True so the whole preprocessing step is one graph
# (pattern from eager-mode quantisation tutorials: quantize_per_tensor + int_repr to get
# the uint8 codes that are stored).
import torch

torch.manual_seed(0)

SCALE, ZERO_POINT = 0.05, 128


@torch.compile
def encode(x):
    x = torch.tanh(x) * 4.0
    q = torch.quantize_per_tensor(x, SCALE, ZERO_POINT, torch.quint8)
    codes = q.int_repr()
    return codes, q.dequantize()


def decode(codes):
    return (codes.float() - ZERO_POINT) * SCALE


x = torch.randn(4, 32)
codes, deq = encode(x)
print("codes", codes.dtype, codes[0, :8].tolist())
print("roundtrip max err", f"{(decode(codes) - deq).abs().max().item():.6f}")
print("quant error", f"{(deq - torch.tanh(x) * 4.0).abs().max().item():.4f}")
