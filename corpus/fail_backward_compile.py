"""Failure (kernel_compile, backward): the forward compiles; the backward graph, which AOTAutograd
compiles lazily at the first backward() and where Inductor recomputes relu, does not. The class
of pytorch/pytorch#95193 (a C++ compile error in the backward of torch.logit on the CPU, the
forward fine) and #184100 (an InductorError raised while compiling the backward graph of a
complex multiply); both are fixed in torch 2.13 on the CPU, so Inductor's relu injector stands
in, set after the forward compiled. AOTAutograd's cache is off: a warm cache would load a
backward compiled before the injector was set and nothing would fail."""
import torch
import torch._functorch.config
import torch._inductor.config as inductor_config

torch._functorch.config.enable_autograd_cache = False


def step(x, y):
    return (torch.relu(x) * y).sum()  # <- diagnosis


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
loss.backward()
print("ok")
