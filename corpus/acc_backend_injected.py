"""Accuracy: a backend that rewrites relu(x) into x + 1 (Dynamo's relu_accuracy_error_TESTING_ONLY).

No Inductor config shows it: only a compiled-vs-eager comparison finds it, so the corpus runs
this one with `compdiag run --check-accuracy`."""
import torch


def gate(x):
    return torch.relu(x) * 2  # <- diagnosis


x = torch.randn(16)
out = torch.compile(gate, backend="relu_accuracy_error_TESTING_ONLY")(x)
print("max abs diff vs eager:", (out - gate(x)).abs().max().item())
