"""pytorch/pytorch#167900 ("Faithful implementation of tracebacks in exception handling",
https://github.com/pytorch/pytorch/issues/167900, open, high priority): an assert that fails in a
helper called inside a `with torch.no_grad():` block of a fullgraph compiled function does not
reach the user as their AssertionError: torch raises Unsupported instead (for the issue's
`assert False`, "Observed exception"; for this computed check, on torch 2.13, "Data-dependent
assertion failed (cannot compile partial graph)", although the value is a constant), and names
the helper's line under "from user code". Written as a normaliser that checks its input's layout
in a helper while it computes statistics without grad; the second batch lost its batch dimension.
"""
import torch


def check_layout(x):
    assert x.dim() == 3  # (batch, time, features)


@torch.compile(fullgraph=True)
def normalise(x):
    with torch.no_grad():
        check_layout(x)
        mean = x.mean(dim=1, keepdim=True)
    return x - mean


print(normalise(torch.randn(4, 10, 8)).shape)
print(normalise(torch.randn(10, 8)).shape)
