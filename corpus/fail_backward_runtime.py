"""Failure (runtime, backward): the forward compiles and runs; the compiled backward graph, compiled
lazily at the first backward(), fails when it runs. The class of pytorch/pytorch#178080
(CompiledFunctionBackward raises at the first backward(), eager fine; its repro passes on the
CPU with torch 2.13) and #163567 ("fail on backwards only in compile"), so Inductor's relu
injector stands in, set to runtime_error after the forward compiled, in the backward graph where
Inductor recomputes relu. AOTAutograd's cache is off: a warm cache would load a backward
compiled without the injector and nothing would fail."""
import torch
import torch._functorch.config
import torch._inductor.config as inductor_config

torch._functorch.config.enable_autograd_cache = False


def step(x, y):
    return (torch.relu(x) * y).mean()  # <- diagnosis (the op whose backward kernel threw)


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"
loss.backward()
print("ok")
