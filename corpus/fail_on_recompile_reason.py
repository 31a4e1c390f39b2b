"""Failure (runtime), torch's message whole: under set_stance("fail_on_recompile") a call that
would recompile raises, and the guard that failed (here a dtype) is on the message's third
line. After pytorch/pytorch#163500 (the reason was added to the message); the summary must
keep it."""
import torch


@torch.compile(backend="eager")
def scale(x):
    return x * 2


scale(torch.randn(4))
torch.compiler.set_stance("fail_on_recompile")
scale(torch.randn(4, dtype=torch.float64))  # <- diagnosis
print("ok")
