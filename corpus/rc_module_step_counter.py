"""Recompile every step: an int attribute of an nn.Module (a step counter) that forward()
increments. After pytorch/pytorch#115711: Dynamo treats int attributes of a module as
constants, so each new value is a new graph; torch's hint names
allow_unspec_int_on_nn_module."""
import torch


class Decay(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.step = 0

    def forward(self, x):
        self.step += 1  # <- diagnosis
        return self.lin(x) * (0.99 ** self.step)


model = torch.compile(Decay(), backend="eager")
for _ in range(5):
    model(torch.randn(2, 8))
print("ok")
