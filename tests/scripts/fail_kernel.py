"""Compile failures from the Inductor C++ backend's test-only bug injector.

r1 fails to compile its kernel (stage kernel_compile); the program catches that and goes
on. r2's kernel compiles but throws when it runs (stage runtime); that error escapes."""
import torch
import torch._inductor.config as inductor_config


def r1(x):
    return torch.relu(x) + 1


def r2(x):
    return torch.relu(x) - 1


inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
try:
    torch.compile(r1)(torch.randn(8))
except Exception as exc:  # noqa: BLE001
    print("compile failed:", type(exc).__name__, flush=True)

inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"
torch.compile(r2)(torch.randn(8))
print("not reached")
