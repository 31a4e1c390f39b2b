"""Failure (aot): pytorch/pytorch#172956 (probes44j saliency_grad_probe_bw_mutation). A custom
autograd.Function saves a tensor the compiled code created and returns, and its backward adds
the incoming gradient into it in place; AOTAutograd's partitioner cannot place a value that is
both a forward output and written by the backward ("was invalid, but is output"). Eager runs
it. Allocate the probe outside and pass it in, or use a tensor hook."""
import torch


class Accumulate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, probe):
        ctx.save_for_backward(probe)
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        (probe,) = ctx.saved_tensors
        probe.add_(grad)  # <- diagnosis
        return grad.clone(), None


def step(x):
    probe = torch.zeros_like(x)
    y = Accumulate.apply(x, probe)
    return (y * y).sum(), probe


x = torch.randn(4, 3, requires_grad=True)
loss, probe = torch.compile(step)(x)
loss.backward()
print(probe.sum().item())
