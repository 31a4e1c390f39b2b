"""pytorch/pytorch#121251: "[torch.compile] `index_select` out of bound read". Index 2 of a
size-2 dimension: eager raises `IndexError: index out of range in self`, the compiled model
reads past the tensor and returns garbage."""
import torch


class Model(torch.nn.Module):
    def forward(self, x1):
        v = torch.index_select(x1, 0, torch.tensor([2]))
        return v


func = Model()
x = torch.randn(2, 2, 2, 2)
with torch.no_grad():
    func1 = torch.compile(func)
    print(func1(x.clone()))
