"""pytorch/pytorch#125804 ("torch.compile crash - Aborted exit code 134",
https://github.com/pytorch/pytorch/issues/125804): after a model compiled with mode="max-autotune"
has run, a failing torch._assert_async on the GPU, whose RuntimeError the program catches and
ignores, ends the process with SIGABRT (core dumped) at exit instead of letting it finish. The
issue's minirepro (CUDA)."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28, 1)

    def forward(self, x):
        output = self.fc1(x)
        return output


x = torch.rand(28, 28, device="cuda")
model = Net().to(device="cuda")
x_pt2 = torch.compile(model, mode="max-autotune")(x)
try:
    torch._assert_async(torch.tensor(0, device="cuda"))
except Exception:
    print("ignoring exception")
