"""Recompile: the program turns a module's flag on between calls through a method of the
model (as `set_grad_checkpointing(True)` does in timm); the compiled forward guards on the
flag, so the next call compiles again, and torch's reason names the flag, not the line that
set it."""
import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.use_norm = False

    def enable_norm(self, on=True):
        self.use_norm = on

    def forward(self, x):
        h = self.body(x)
        return torch.nn.functional.layer_norm(h, h.shape[-1:]) if self.use_norm else h


model = Net()
run = torch.compile(model)
for step in range(4):
    if step == 2:
        model.enable_norm()  # <- diagnosis
    out = run(torch.randn(2, 8))
print(round(float(out.detach().abs().sum()), 3))
