"""Accuracy (the trace took another path than Python): a helper tells a learned scale (a
tensor) from a fixed one (a float) by catching the AttributeError of `getattr` on the
value's type; while tracing, that getattr does not raise, so the compiled code exponentiates
the float too (pytorch/pytorch#198197)."""
import torch

torch.manual_seed(0)


def effective(scale):
    try:
        getattr(type(scale), "exp")  # <- diagnosis
    except AttributeError:
        return scale
    return torch.as_tensor(scale).exp()


head = torch.nn.Linear(4, 4)


def logits(x, scale):
    return head(x) * effective(scale)


out = torch.compile(logits)(torch.randn(2, 4), 2.0)
print(round(float(out.detach().abs().sum()), 3))
