"""pytorch/pytorch#189054 ("[Compile, 2.10 and 2.11, but not in 2.12.1] Compile with
"max-autotune-no-cudagraphs" could overflow when shape is large",
https://github.com/pytorch/pytorch/issues/189054): a bfloat16 matmul whose output has 2**32
elements (32768 x 131072), compiled with mode="max-autotune-no-cudagraphs", gives wrong rows at
the end of the output (the issue, on 2.11: max_abs_err = 187.0 against eager, 0.0 with the
default mode, which calls cuBLAS), "related to int32 addressing" in Inductor's Triton mm
template. Should reproduce on torch 2.11: the reporter measured it on 2.10 and 2.11 and not on
2.12.1. Here the GEMM backends are restricted to Triton so that autotuning cannot pick cuBLAS
on the H200 (the issue's run picked the template); only the issue's failing size is run, and
the program ends in its own check of the last 64 rows against eager. About 9 GB of GPU memory."""
import torch
import torch._inductor.config as inductor_config

inductor_config.max_autotune_gemm_backends = "TRITON"

M, K, N = 32768, 1024, 131072
torch.manual_seed(0)
x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
ref = x[-64:] @ w.mT
mm = torch.compile(lambda a, b: a @ b.mT, dynamic=False, fullgraph=True, mode="max-autotune-no-cudagraphs")
err = (mm(x, w)[-64:] - ref).abs().max().item()
print(f"out.numel() = 2**{(M * N).bit_length() - 1}, max_abs_err = {err}")
assert err < 1.0, f"compiled matmul's last rows differ from eager by {err}"
