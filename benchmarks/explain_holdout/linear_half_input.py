"""pytorch/pytorch#141865: "[Inductor] [CPU] Inductor behaves differently with eager mode on CPU
device when using torch.nn.Linear()". A float16 input to a float32 Linear: eager raises
`mat1 and mat2 must have the same dtype`, the compiled model on the CPU returns a result."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)


x = torch.randn(1, 1, dtype=torch.float16)
m = Model().eval()
c_m = torch.compile(m)
print(c_m(x))
