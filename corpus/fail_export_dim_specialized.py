"""Failure (torch.export): the batch dimension is declared dynamic in `dynamic_shapes`, but a
reshape uses the batch size from the training config, which pins it to that value; export
raises a constraint violation that names the dimension, not the line."""
import torch
from torch.export import Dim, export

CFG = {"batch": 4, "tokens": 6}


class Pool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        h = h.reshape(CFG["batch"], CFG["tokens"], -1)  # <- diagnosis
        return h.mean(1)


example = torch.randn(CFG["batch"], CFG["tokens"], 8)
ep = export(Pool(), (example,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=32)}})
print(ep.module()(torch.randn(2, CFG["tokens"], 8)).shape)
