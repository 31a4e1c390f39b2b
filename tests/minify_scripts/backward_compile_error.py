"""The backward graph fails (compile_error): AOTAutograd compiles it lazily at the first backward(),
where Inductor recomputes relu; the injector is set after the forward compiled."""
import torch
import torch._inductor.config as inductor_config


def step(x, y):
    return (torch.relu(x.sin()) * y).sum()


x = torch.randn(16, requires_grad=True)
y = torch.randn(16, requires_grad=True)
loss = torch.compile(step)(x, y)
inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
loss.backward()
