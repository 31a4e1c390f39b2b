"""pytorch/pytorch#151525 ("[inductor] [cpu] [silent incorrectness]
`nn.LazyConvTranspose2d-torch.randn-F.linear-torch.argmax` output incorrect results on CPU
inductor", https://github.com/pytorch/pytorch/issues/151525, open): with fallback_random=True and
the same seed, eager and the CPU-compiled model pick different argmax indices; on torch 2.13 the
plain run prints tensor([4]) for eager and tensor([53]) compiled, and the program ends in the
user's own assert on the two."""
import torch
import torch.nn.functional as F
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch.manual_seed(0)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_transpose = torch.nn.LazyConvTranspose2d(out_channels=8, kernel_size=3, stride=2)

    def forward(self, x):
        x = self.conv_transpose(x)
        y = torch.randn(64, x.numel() // x.shape[0], dtype=x.dtype)
        x = F.linear(x.flatten(1), y)
        x = torch.argmax(x, dim=1)
        return x


model = Model()
x = torch.randn(1, 3, 16, 16)


def run(model, backend):
    if backend != "eager":
        model = torch.compile(model, backend=backend)
    torch.manual_seed(0)
    return model(x)


eager = run(model, "eager")
compiled = run(model, "inductor")
print(eager, compiled)
assert torch.equal(eager, compiled), f"argmax differs: eager {eager.tolist()} compiled {compiled.tolist()}"
