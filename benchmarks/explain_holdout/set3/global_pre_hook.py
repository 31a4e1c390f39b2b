"""pytorch/pytorch#149502 ("[dynamo] register_module_forward_pre_hook lead to compiled model
produce wrong inference results", https://github.com/pytorch/pytorch/issues/149502): with a
global forward pre-hook that rescales the input, the compiled module's output differs from
eager's. (Reduced: the issue's model is a larger network.)"""
import torch


def pre_hook(module, inputs):
    return (inputs[0] * 2,)


torch.manual_seed(0)
m = torch.nn.Linear(4, 4)
handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
x = torch.randn(2, 4)
eager = m(x)
compiled = torch.compile(m)(x)
print(eager.sum().item(), compiled.sum().item())
torch.testing.assert_close(compiled, eager)
