"""Cache bypass (FX graph cache) of a graph holding a higher-order op: a torch.cond that picks
a residual branch. Inductor's FX graph cache refuses graphs with HigherOrderOperators it does
not know to be cacheable ("Can't cache HigherOrderOperator: cond"), so every new process
compiles this graph again. Compiled once here: information. After pytorch/pytorch#149318
("BypassFxGraphCache should have better error message for HOPs (also we should support
more)")."""
import torch

torch.manual_seed(0)


def residual(x, w):
    return x @ w + x


def plain(x, w):
    return x @ w


def block(x, w):
    return torch.cond(x.sum() > 0, residual, plain, (x, w))  # <- diagnosis


w = torch.randn(8, 8)
out = torch.compile(block)(torch.randn(4, 8), w)
print(out.shape)
