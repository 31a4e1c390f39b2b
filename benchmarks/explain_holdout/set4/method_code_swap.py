"""pytorch/pytorch#197860 ("[dynamo] torch.compile does not guard the code object of an inlined
bound method", https://github.com/pytorch/pytorch/issues/197860): replacing Model.m.__code__
after the first compiled call changes eager's result (x * 9) while the compiled lambda keeps
the old graph (x * 2)."""
import torch


def first(self, x):
    return x * 2.0


def second(self, x):
    return x * 9.0


class Model:
    m = first


model = Model()
x = torch.arange(1.0, 4.0)
compiled = torch.compile(lambda x: model.m(x))
print(compiled(x))
Model.m.__code__ = second.__code__
print(model.m(x))
torch.testing.assert_close(compiled(x), model.m(x))
