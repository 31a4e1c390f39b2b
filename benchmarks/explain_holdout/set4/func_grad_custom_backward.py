"""pytorch/pytorch#193279 ("Dynamo silently drops custom `backward` of `autograd.Function` under
`torch.func.grad`, producing wrong gradients", https://github.com/pytorch/pytorch/issues/193279):
the custom backward returns zeros; eager torch.func.grad respects it, the compiled one
differentiates sin instead and returns cos(x)."""
import torch


class SinWithZeroBackward(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.sin(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros_like(grad)


def loss(x):
    return SinWithZeroBackward.apply(x).sum()


x = torch.randn(4)
eager = torch.func.grad(loss)(x)
compiled = torch.compile(torch.func.grad(loss))(x)
print(eager, compiled)
torch.testing.assert_close(compiled, eager)
