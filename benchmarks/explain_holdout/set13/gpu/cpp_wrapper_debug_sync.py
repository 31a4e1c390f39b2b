"""pytorch/pytorch#140220 ("cpp_wrapper and triton.debug_sync_kernel errors out",
https://github.com/pytorch/pytorch/issues/140220, open, repro:agent:h100:repro_success): with
Inductor's C++ wrapper on and triton.debug_sync_kernel (synchronise after every kernel, a
debugging option for asynchronous CUDA errors) on together, the wrapper's code generator writes
the Python statement torch.cuda.synchronize() into the generated C++ file, g++ rejects it, and the
first call fails with InductorError: CppCompileError. No op of the user's is at fault: the two
options of the compile are (issue 29 section 1, a compile of CUDA code that fails).

Why it should still reproduce on torch 2.11: PT2's repro agent reproduced it 3/3 on
2.13.0.dev20260516+cu130 on an H100 (May 2026); the fixes, PR #180564 (April 2026) and PR
#184217 ("Fix debug sync in GPU cpp wrapper", June 2026), are after 2.11. The script is the
issue's repro as the agent ran it (force_disable_caches, no longer accepted, left out)."""
import torch

batch_size = 32
seq_length = 50
hidden_size = 768


def test_fn():
    inp = torch.randn(batch_size, seq_length, hidden_size, device="cuda")
    weight = torch.randn(hidden_size, hidden_size, device="cuda")
    matmul_output = inp @ weight
    final_output = torch.nn.LayerNorm(hidden_size, device="cuda")(matmul_output)
    return final_output


comp = torch.compile(options={"cpp_wrapper": True, "triton.debug_sync_kernel": True})(test_fn)
out = comp()
print(out.shape)
