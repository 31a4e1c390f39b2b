"""Failure (Dynamo internal): probes47b byol_target_compiled_method, after pytorch/pytorch#170696.
A method decorated with its own `@torch.compile(fullgraph=True)` (over `@torch.no_grad()`) is
called from the forward of a model that is compiled too: Dynamo traces into the inner compiled
method and fails on its wrapper. The line to change is the inner decorator; the outer compile
traces the method anyway."""
import torch
import torch.nn as nn


class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.online = nn.Linear(8, 8)
        self.target = nn.Linear(8, 8)

    @torch.compile(fullgraph=True, backend="eager")  # <- diagnosis
    @torch.no_grad()
    def target_view(self, x):
        return self.target(x)

    def forward(self, a, b):
        return (self.online(a) - self.target_view(b)).pow(2).mean()


model = torch.compile(Siamese(), fullgraph=True, backend="eager")
print(float(model(torch.randn(4, 8), torch.randn(4, 8))) >= 0)
