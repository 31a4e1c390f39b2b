"""Failure at torch.compile's call: probes47b detector_getattr_metadata, after
pytorch/pytorch#183890 and #180824. A module's `__getattr__` falls back to a dict attribute that
is only set when a checkpoint has labels; torch.compile looks attributes up on its argument, and
the fallback's `hasattr(self, ...)` runs `__getattr__` again without end. Eager runs; the error
is the program's code, reached through torch.compile, at the recursing line."""
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if hasattr(self, "extras") and name in self.extras:  # <- diagnosis
                return self.extras[name]
            raise

    def forward(self, x):
        return self.fc(x)


head = Head()
print(head(torch.randn(1, 4)).shape)
compiled = torch.compile(head, backend="eager")
print(compiled(torch.randn(1, 4)).shape)
