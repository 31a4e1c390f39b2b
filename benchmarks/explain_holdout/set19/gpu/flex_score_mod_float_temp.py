"""A FlexAttention score_mod that closes over a Python float the training loop changes (an
attention temperature annealed each step), with the attention compiled. The first call
compiles with the float as a constant; the next step's new value fails Dynamo's guard on the
global, and the recompile makes the float dynamic (specialize_float=False, automatic dynamic
since 2.6): it becomes a 0-dim float64 graph input whose `.item()` (aten._local_scalar_dense)
sits inside the score_mod subgraph. Inductor's FlexAttention lowering inlines that subgraph
through build_subgraph_buffer (kernel/flex/common.py, shared by the CUDA/Triton and CPU paths)
and fails: "LoweringException: RuntimeError: unbacked_bindings / While executing
%_local_scalar_dense", with the user's flex_attention line (35) in the original traceback. Eager
runs every step. The fix is to capture a tensor (torch.tensor(temp, device="cuda"), updated in
place) or to pass the float as the scale argument.

Sources: pytorch/pytorch#145208 ("Some FlexAttention learned bias bugs/limitations", open:
captured scalars in score_mod fail in the lowering) and meta-pytorch/attention-gym#171 ("Flex
Attention does not support learnable scalar?", open). Evidence: the same script on the CPU
(torch 2.13.0+cpu, device "cpu") fails at step 1 with exactly this LoweringException from
flex_cpu.lower_cpu -> build_subgraph_buffer; the CUDA lowering (flex_attention.py, line 215 of
the 2.13 wheel) calls the same build_subgraph_buffer. How sure it reproduces on 2.11: fairly
(float tensorification and the shared subgraph builder both predate 2.11), not certain: not run
on a GPU, and 2.11 may fail at another step of the same path with other words."""
import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)
device = "cuda"
temperature = 1.0  # annealed by the loop below


def temperature_mod(score, b, h, q_idx, kv_idx):
    return score / temperature


@torch.compile
def attend(q, k, v):
    return flex_attention(q, k, v, score_mod=temperature_mod)


B, H, S, D = 2, 4, 256, 64
q, k, v = (torch.randn(B, H, S, D, device=device, dtype=torch.float16) for _ in range(3))
for step in range(4):
    temperature = 1.0 + 0.25 * step
    out = attend(q, k, v)
    print(step, temperature, float(out.float().abs().mean()))
