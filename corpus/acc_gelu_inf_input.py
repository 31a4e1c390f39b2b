# after pytorch/pytorch#185770: torch.nn.functional.gelu returns NaN for +inf input with approximate="none"
"""Accuracy on the program's own inputs, inf included: eager's exact gelu computes
`0.5 * x * (1 + erf(x / sqrt(2)))` in a vectorized kernel that gives NaN at +inf; Inductor's
generated code returns +inf, the mathematical limit. Only the program's own input (a +inf in
it) shows the difference: freshly drawn inputs agree. Run with --check-accuracy."""
import torch


def activate(x):
    return torch.nn.functional.gelu(x)  # <- diagnosis


x = torch.tensor([[float("nan"), float("inf"), -float("inf")], [-0.026, 0.11, -0.042]])
print(torch.compile(activate)(x))
