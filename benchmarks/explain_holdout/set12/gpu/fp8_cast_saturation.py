"""pytorch/pytorch PR #178817 ("[CUDA][FP8][CPU][TEST] Properly saturate E4M3 on finite-overflow on
CPU/C++ conversion code", https://github.com/pytorch/pytorch/pull/178817, merged 2026-04-17) and
pytorch/ao#1912 ("Today the cast to `torch.float8_e4m3fn` is unsaturated in PyTorch eager mode, and
saturated in triton"): a float8 quantisation step with a stale scale (delayed scaling: the scale
comes from an earlier step's amax, so this step's values overflow e4m3's range of +-448). Eager's
cast turns every value of 480 or more into NaN; Inductor's Triton kernel converts with the GPU's
saturating instruction (sm_89+: cvt.rn.satfinite.e4m3x2.f32) and returns 448. The program prints
both and exits 0: the compiled quantiser silently clamps where eager poisons the tensor with NaN.

Why it should still reproduce on torch 2.11: the eager cast saturates only since PR #178817 (after
2.11's branch cut; torchao gates its "eager saturates" test on 2.12.0.dev0 and newer, ao PR #4364),
so 2.11's eager CUDA cast (c10's fp8e4m3fn_from_fp32_value) still maps finite overflow to NaN.
Triton's e4m3 conversion on an H200 (sm_90, not the uint8 storage path used below sm_89) has
saturated since triton 2.x."""
import torch


def quantize(x, scale):
    return (x * scale).to(torch.float8_e4m3fn)


torch.manual_seed(0)
x = torch.randn(4096, device="cuda") * 100.0     # this step's activations, amax about 400
scale = torch.tensor(448.0 / 50.0, device="cuda")  # stale: an earlier step's amax was 50
compiled = torch.compile(quantize)
eager_q = quantize(x, scale).float()
comp_q = compiled(x, scale).float()
print("eager NaNs:", int(eager_q.isnan().sum()), "compiled NaNs:", int(comp_q.isnan().sum()),
      "compiled max:", float(comp_q.abs().max()))
