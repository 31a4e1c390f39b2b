# Reduced precision: eager float16 overflows in x*x (inf) and divides inf; Inductor computes the
# fused expression in float32 and rounds once, so the compiled result is finite.
import torch


def f(x):
    return x * x / 1000


x = torch.full((64,), 300.0, dtype=torch.float16)
out = torch.compile(f)(x)
print("compiled", float(out[0]), "eager", float(f(x)[0]))
