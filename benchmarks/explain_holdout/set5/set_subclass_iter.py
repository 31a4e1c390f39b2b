"""pytorch/pytorch#186671 ("[dynamo] set subclass overriding __iter__ gives wrong result for set
comparison under torch.compile", https://github.com/pytorch/pytorch/issues/186671): CPython's set
comparison reads the set's stored elements and ignores an overridden __iter__, but Dynamo builds
the subclass's items by iterating it, so a set subclass whose __iter__ lies compares unequal
under torch.compile (fullgraph, backend="eager"). On torch 2.13 the plain run gets False where
eager gets True and ends in the user's own assert."""
import torch


class MySet(set):
    def __iter__(self):
        return iter([99])


def fn(s1, s2):
    return s1 == s2


s1 = {1, 2, 3}
s2 = MySet({1, 2, 3})
eager = fn(s1, s2)
compiled = torch.compile(fn, backend="eager", fullgraph=True)(s1, s2)
print("eager:   ", eager)
print("compiled:", compiled)
assert compiled == eager, f"set comparison: compiled {compiled}, eager {eager}"
