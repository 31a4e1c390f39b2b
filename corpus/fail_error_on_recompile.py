"""Failure, torch's message whole: with torch._dynamo.config.error_on_recompile a recompile
raises RecompileError, and the guard that failed is on the message's third line. After
pytorch/pytorch#144787 (error_on_recompile to find an unexpected recompile)."""
import torch
import torch._dynamo

torch._dynamo.config.error_on_recompile = True


def gate(x):
    return torch.sigmoid(x) * x


compiled = torch.compile(gate, backend="eager")
compiled(torch.randn(8))
compiled(torch.randn(8, dtype=torch.float64))  # <- diagnosis
print("ok")
