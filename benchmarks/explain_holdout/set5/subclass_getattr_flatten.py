"""pytorch/pytorch#194323 ("[dynamo] `torch.compile` raises `AttributeError: '__tensor_flatten__'`
for a bare `torch.Tensor` subclass with a `__getattr__` method",
https://github.com/pytorch/pytorch/issues/194323, open, reproduced by its author on 2.13.0): a
bare Tensor subclass (no __torch_dispatch__, no __tensor_flatten__) whose __getattr__ returns a
method works in eager; compiled, Dynamo treats it as a traceable subclass and crashes with
InternalTorchDynamoError instead of a graph break. On torch 2.13 the plain run ends in
"InternalTorchDynamoError: AttributeError: type object 'CustomTensor' has no attribute
'__tensor_flatten__'" from user code at the custom_method call."""
import torch


def fn():
    class CustomTensor(torch.Tensor):
        def __getattr__(self, attr):
            if attr == "custom_method":
                return lambda x: self + x

    ct = CustomTensor([1, 2, 3])
    return ct.custom_method(torch.tensor([4, 5, 6]))


print("eager", fn())
print("compiled", torch.compile(fn)())
