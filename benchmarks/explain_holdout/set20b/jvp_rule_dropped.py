"""Forward-mode sensitivity of a quantiser whose straight-through jvp compile drops.

From pytorch/pytorch#192985 (open, 2026-08-11, "Dynamo silently drops custom `jvp` of
`autograd.Function` under `torch.func.jvp`, producing wrong tangents"; labels module: dynamo,
module: correctness (silent)): inside a compiled function, Dynamo inlines the Function's
`forward()` as plain code and differentiates it with the default forward-AD rules, ignoring
its `jvp` staticmethod, with no error, warning or graph break even under fullgraph=True.

Here the Function is a straight-through estimator for rounding (its jvp passes the tangent
through, as quantisation-aware code does); the compiled sensitivity uses round's own
derivative, zero. The program prints eager's and compiled's tangents; it does not compare them.
"""
import torch

torch.manual_seed(0)


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.round(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, dx):
        return dx


def quantize(w, scale):
    return RoundSTE.apply(w / scale) * scale


def sensitivity(w, direction, scale):
    _, tangent = torch.func.jvp(lambda t: quantize(t, scale), (w,), (direction,))
    return tangent


weights = torch.randn(6)
direction = torch.randn(6)
compiled_sensitivity = torch.compile(sensitivity, fullgraph=True)
print("eager   :", sensitivity(weights, direction, 0.25))
print("compiled:", compiled_sensitivity(weights, direction, 0.25))
