# Block floating point (shared-exponent) quantization, as in MX / BFP formats: each block of 8
# values shares the exponent of its largest magnitude (from torch.frexp), mantissas are rounded
# to 6 bits, and we report the quantization error and the exponent histogram (simulated in float64).
import torch

torch.manual_seed(0)
BLOCK = 8
MANT_BITS = 6


def bfp_quantize(x):
    blocks = x.reshape(-1, BLOCK)
    amax = blocks.abs().amax(dim=1, keepdim=True)
    _, exp = torch.frexp(amax)                     # amax = m * 2**exp, 0.5 <= m < 1
    scale = torch.ldexp(torch.ones_like(amax), exp - MANT_BITS)
    q = torch.clamp(torch.round(blocks / scale), -(2**MANT_BITS), 2**MANT_BITS - 1)
    deq = (q * scale).reshape(x.shape)
    exp_sum = exp.sum()
    return deq, exp.squeeze(1), exp_sum


weights = torch.randn(16, 32, dtype=torch.float64) * torch.logspace(-3, 1, 32, dtype=torch.float64)
compiled_quant = torch.compile(bfp_quantize, backend="aot_eager")

deq_e, exp_e, s_e = bfp_quantize(weights)
print("eager   : max err %.6f, exponent sum %d" % ((deq_e - weights).abs().max().item(), s_e.item()))
deq_c, exp_c, s_c = compiled_quant(weights)
print("compiled: max err %.6f, exponent sum %d" % ((deq_c - weights).abs().max().item(), s_c.item()))
print("same exponents:", torch.equal(exp_e, exp_c))
print("exponent histogram:", torch.bincount(exp_c - exp_c.min()).tolist())
