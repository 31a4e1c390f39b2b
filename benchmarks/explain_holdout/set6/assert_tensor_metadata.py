"""pytorch/pytorch#179883 ("`torch.compile` crashes on `aten._assert_tensor_metadata.default`",
https://github.com/pytorch/pytorch/issues/179883, open): the op runs in eager and fails when the
function is compiled. The script is the issue's."""
import torch


def f(x: torch.Tensor):
    torch.ops.aten._assert_tensor_metadata.default(x, size=[10])
    return x + 1


x = torch.empty(10)
print(f(x).shape)
print(torch.compile(f)(x).shape)
