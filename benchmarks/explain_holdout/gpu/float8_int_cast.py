"""pytorch/pytorch#151018: "[inductor] Triton generated kernel int -> float8 fails". Converting an
int32 CUDA tensor to float8_e5m2 makes Inductor emit `tmp0.to(tl.float8e5)`, which Triton
refuses to compile."""
import torch


def fn(x):
    return x.to(torch.float8_e5m2)


x = torch.ones(16, dtype=torch.int, device="cuda")
print(torch.compile(fn)(x))
