"""pytorch/pytorch#169538 ("`torch.compile` fails on `addmm_` with int64 tensors due to
fake-tensor meta error", https://github.com/pytorch/pytorch/issues/169538): eager runs the module
(its try/except catches the in-place addmm_ that cannot broadcast the (2, 3) product into a
(1, 3) input), but compiling fails in the fake-tensor meta of aten.addmm_ ("expand: attempting
to expand a dimension of length 2 -> 1!", TorchRuntimeError)."""
import torch
from torch import nn


class MyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mat1 = torch.randint(-2, 4, (2, 3), dtype=torch.int64)
        self.mat2 = torch.randint(-8, 1, (3, 3), dtype=torch.int64)

    def forward(self, input):
        try:
            out_of_place = torch.addmm(input, self.mat1, self.mat2)
        except Exception:
            out_of_place = None
        input_inplace = input.clone()
        try:
            input_inplace.addmm_(self.mat1, self.mat2)
        except Exception:
            input_inplace = None
        return out_of_place is not None and input_inplace is not None


model = MyModel()
x = torch.randint(-5, 5, (1, 3), dtype=torch.int64)
print("eager:", model(x))
print("compiled:", torch.compile(model)(x))
