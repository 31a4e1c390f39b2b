"""The program's own `warnings.simplefilter("error")` (a test suite's strict setting, as
`pytest -W error` sets) turns a warning torch issues while compiling into an exception:
Inductor's import reaches TorchScript code whose `torch.jit.script_method` is deprecated, and
the DeprecationWarning raises out of the compiled call. After pytorch/pytorch#174081 (vLLM's
tests under torch 2.10: "DeprecationWarning: `torch.jit.script_method` is deprecated" from
torch's own code) and #127283 (TorchScript and DeprecationWarning)."""
import warnings

import torch

warnings.simplefilter("error")  # <- diagnosis
torch.manual_seed(0)


def gelu_mlp(x, w1, w2):
    return torch.nn.functional.gelu(x @ w1) @ w2


x, w1, w2 = torch.randn(4, 8), torch.randn(8, 16), torch.randn(16, 8)
print(round(gelu_mlp(x, w1, w2).sum().item(), 4))
print(round(torch.compile(gelu_mlp)(x, w1, w2).sum().item(), 4))
