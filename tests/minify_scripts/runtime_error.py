"""Minify e2e: runtime error in compiled code (relu injector) in a module with parameters."""
import torch
import torch._inductor.config as inductor_config

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2))
with torch.no_grad():
    torch.compile(model)(torch.randn(3, 6))
