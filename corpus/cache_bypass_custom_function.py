# after SandAI-org/MagiCompiler PR #16: AOTAutograd caching for graphs with autograd_function_apply
"""Cache bypass (AOTAutograd) from the user's own autograd.Function: a straight-through
rounding Function inside a compiled quantised matmul. AOTAutogradCache refuses the
autograd_function_apply node unless torch._functorch.config.
autograd_cache_allow_custom_autograd_functions is set, so the compile after
torch._dynamo.reset() is traced again instead of loaded; the construct is the `.apply` line."""
import torch


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


def quantized(w, x):
    q = RoundSTE.apply(w * 8) / 8  # <- diagnosis
    return (x @ q).sum()


w = torch.randn(8, 8, requires_grad=True)
for _ in range(2):
    torch._dynamo.reset()
    torch.compile(quantized)(w, torch.randn(2, 8)).backward()
print("ok")
