"""A regression test that a compiled training step matches the eager one under the same seed
(as a port-to-compile checklist asks): the model has dropout, so both draw random masks."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 8))
x = torch.randn(16, 32)

torch.manual_seed(123)
eager_out = model(x)

compiled = torch.compile(model)
torch.manual_seed(123)
comp_out = compiled(x)

torch.testing.assert_close(comp_out, eager_out, rtol=1e-4, atol=1e-5)
print("compiled matches eager")
