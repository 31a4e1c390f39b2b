# after pytorch/pytorch#125718: `torch.compile` and complex numbers
"""Perf, many fallbacks of one cause: Inductor generates no code for complex dtypes, warns once
("does not support code generation for complex operators") and runs every complex op as an
eager ATen fallback kernel. The cause is the complex value the program builds on one line."""
import torch

torch._inductor.config.fx_graph_cache = False  # the fallbacks are decided on a real lowering


def energy(x, y):
    z = (x + 1j * y).pow(4)  # <- diagnosis
    return z.real.sum()


torch.compile(energy)(torch.rand(5), torch.rand(5))
print("ok")
