"""pytorch/pytorch#196212 ("torch.compile fails to trace iter() on list_reverseiterator",
https://github.com/pytorch/pytorch/issues/196212): a `reversed(list)` iterator passed into a
fullgraph=True function; Dynamo models it as a user-defined object and fails on `iter(it)`
(Unsupported: Dynamo does not know how to trace method `__iter__` of class
`list_reverseiterator`)."""
import torch


def fn(it, x):
    same_it = iter(it)
    assert same_it is it
    first = next(same_it)
    second = next(it)
    return x + first * 10 + second


x = torch.tensor(1)
eager = fn(reversed([3, 5, 7]), x)
compiled_fn = torch.compile(fn, backend="eager", fullgraph=True)
compiled = compiled_fn(reversed([3, 5, 7]), x)
torch.testing.assert_close(compiled, eager)
