"""Accuracy (the trace itself wrong): a custom autograd.Function's `jvp` rule is ignored when
the compiled function runs it under torch.func.jvp; Dynamo differentiates the Function's
forward with the default rules instead, without an error, a warning or a graph break (the
class of pytorch#192985). Each graph matches its own eager replay; only the function run
whole in eager and compiled differs. Here a gradient-reversal layer, whose forward is the
identity and whose jvp flips the tangent, as domain-adaptation code writes it.

    compdiag run --check-accuracy corpus/acc_traced_custom_jvp.py && compdiag explain
"""
import torch


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.view_as(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def jvp(ctx, dx):
        return -dx


def head(features, weight):
    return GradReverse.apply(features) @ weight  # <- diagnosis


def directional(features, weight, direction):
    return torch.func.jvp(lambda f: head(f, weight), (features,), (direction,))[1]


torch.manual_seed(0)
features, weight, direction = torch.randn(4, 8), torch.randn(8, 3), torch.randn(4, 8)
print("eager   :", directional(features, weight, direction)[0])
print("compiled:", torch.compile(directional)(features, weight, direction)[0])
