"""pytorch/pytorch#189518 ("Inductor's pointless_cumsum_replacement drops cumsum's explicit dtype
argument", https://github.com/pytorch/pytorch/issues/189518): Inductor rewrites cumsum over a
tensor of ones made in the graph into an arange, with the ones' dtype, and drops cumsum's dtype=:
the compiled result is int64 where eager's is bfloat16 (in DETR-style position embeddings this
later fails as a matmul dtype mismatch). The issue's repro."""
import torch


def f():
    ones = torch.ones((2, 4, 4), dtype=torch.bool)
    return ones.cumsum(1, dtype=torch.bfloat16)


eager = f()
compiled = torch.compile(f)()
print(eager.dtype)
print(compiled.dtype)
