"""pytorch/pytorch#169253 ("torch.compile bug: class-level list mutations are dropped",
https://github.com/pytorch/pytorch/issues/169253): forward appends to a class-level list; eager
ends with 2 items, the compiled forward with 0."""
import torch
import torch.nn as nn


class Model(nn.Module):
    items = []

    def forward(self, x):
        Model.items.append(x)


m = Model()
m.forward = torch.compile(m.forward)
m(torch.randn(2, 4))
m(torch.randn(2, 4))
assert len(Model.items) == 2, f"With compile: {len(Model.items)} items"
