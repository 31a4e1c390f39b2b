"""pytorch/pytorch#141560 ("[Feature Request] Add source Inductor Python file path to each Triton
kernel", https://github.com/pytorch/pytorch/issues/141560, open): "the generated Triton code may
throw runtime errors", and the only way to find the user's source is to find the generated file
that holds the kernel, read its FX-node comments and guess the user's line from them. The
runtime error here is the one Inductor builds into every indirect load: a token id one past the
end of an embedding table (a vocabulary off-by-one) makes the fused Triton kernel fail its
tl.device_assert, "Assertion `index out of bounds: 0 <= tmp < 1000` failed", printed with the
generated file's path. The bad id comes in the third step, after the first
steps have compiled and tuned the kernel, so the failing launch is a plain one, not an
autotuning benchmark inside the compiled call. The CUDA error is asynchronous: Python raises
"RuntimeError: CUDA error: device-side assert triggered" later, at the program's
torch.cuda.synchronize(). The kernel's only user line is the lookup's `return`.

Why it should still reproduce on torch 2.11: by design. Inductor's indirect-indexing asserts
(config.assert_indirect_indexing=True, which also turns on Triton's debug mode for the kernel)
are the default in every release, and 2.13's source still has them. The index really is out of
range: eager asserts too."""
import torch


def lookup(table, ids, scale):
    return (table[ids] * scale).sum(-1)


compiled = torch.compile(lookup)
table = torch.randn(1000, 64, device="cuda")
scale = torch.randn(64, device="cuda")
for step in range(3):
    ids = torch.randint(0, 1000, (32,), device="cuda")
    if step == 2:
        ids[7] = 1000
    out = compiled(table, ids, scale)
    torch.cuda.synchronize()
    print(step, out.sum().item())
