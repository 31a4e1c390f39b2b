"""pytorch/pytorch PR #190261 ("Move slots to a SLOTDEFS static list in base.py",
https://github.com/pytorch/pytorch/pull/190261, newer than torch 2.13; its bug, as the mirror
intel/torch-xpu-ops#4631 states it: "Dynamo cannot trace explicit __set__/__delete__ calls on
member_descriptor (slot descriptors) ... raise 'Unsupported method call' under fullgraph=True"):
an explicit `Point.scale.__set__(p, 3.0)` on a __slots__ descriptor runs in eager; on torch 2.13
the fullgraph compile ends in Unsupported ("Dynamo does not know how to trace method `__set__` of
class `member_descriptor`") from that line."""
import torch


class Point:
    __slots__ = ("scale",)


def f(x, p):
    Point.scale.__set__(p, 3.0)
    return x * p.scale


p = Point()
x = torch.randn(4)
print("eager", f(x, p))
p2 = Point()
print("compiled", torch.compile(f, fullgraph=True)(x, p2))
