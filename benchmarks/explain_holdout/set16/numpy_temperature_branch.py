"""PyTorch's own test suite: test/dynamo/test_unspec.py::UnspecTests::
test_specializing_numpy_float_in_control_flow, marked `@unittest.expectedFailure  # fails as
long as numpy scalars are 0D arrays`: a NumPy float scalar (np.float16/32/64) used in an `if`
inside a compiled function should be specialised like a Python float, but Dynamo wraps it as a
0-d ndarray and treats the comparison as data-dependent branching. Written as a user's
sampling step: a temperature schedule kept in a NumPy array, the logits divided only while the
temperature is above 1.
"""
import numpy as np
import torch


def sharpen(logits, temperature):
    if temperature > 1.0:
        logits = logits / temperature
    return torch.softmax(logits, dim=-1)


torch.manual_seed(0)
logits = torch.randn(4, 10)
schedule = np.array([2.0, 1.5, 1.0, 0.8], dtype=np.float32)
compiled = torch.compile(sharpen)
for temperature in schedule:
    probs = compiled(logits, temperature)
    print(f"T={float(temperature):.1f} max prob {probs.max().item():.4f}")
