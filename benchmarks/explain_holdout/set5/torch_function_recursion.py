"""pytorch/pytorch#175841 ("torch.compile crashes with `InternalTorchDynamoError (RecursionError)`",
https://github.com/pytorch/pytorch/issues/175841, open): a Tensor subclass whose __torch_function__
unwraps its args with as_subclass runs in eager, while compiling a function that calls torch.sin
on it crashes inside Dynamo instead of giving eager's result or a graph break. On torch 2.13 the
plain run still ends in InternalTorchDynamoError, now wrapping "AttributeError: 'int' object has no
attribute 'as_subclass'" (the issue saw RecursionError), from user code at the torch.sin line."""
import torch


class QuirkyTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [a.as_subclass(torch.Tensor) for a in args]
        return func(*args)


def fn(x):
    return torch.sin(x)


x = torch.randn(4).as_subclass(QuirkyTensor)
print("eager:", fn(x))
compiled = torch.compile(fn)
print("compiled:", compiled(x))
