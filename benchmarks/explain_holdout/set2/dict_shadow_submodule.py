"""pytorch/pytorch#197859 ("[dynamo] torch.compile misses nn.Module __dict__ shadowing and returns
stale results", https://github.com/pytorch/pytorch/issues/197859): an instance __dict__ entry that
shadows a registered submodule changes eager's result; the compiled module keeps the old one."""
import torch
import torch.nn as nn


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = nn.Linear(4, 4, bias=False)
        with torch.no_grad():
            self.sub.weight.copy_(torch.eye(4))

    def forward(self, x):
        return self.sub(x)


model = Wrapper()
x = torch.arange(4.0)
compiled = torch.compile(model, backend="eager")
compiled(x)
replacement = nn.Linear(4, 4, bias=False)
with torch.no_grad():
    replacement.weight.fill_(5.0)
object.__setattr__(model, "sub", replacement)
torch.testing.assert_close(compiled(x), model(x))
