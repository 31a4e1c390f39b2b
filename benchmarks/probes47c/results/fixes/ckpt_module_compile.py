"""Saving a whole-model training checkpoint after compiling the forward in place (blind probe 47c).

After pytorch/pytorch#101107 ("Make compiled models serializable") and tue-bmd/zea#556's review
thread ("torch.compile-wrapped callables aren't picklable. self.call = jit(self.call) puts a
compiled object into self.__dict__ and any attempt to serialize fails"). The user compiles the
forward with `model.compile()` so that `model` stays the plain module
(its state_dict keys keep their names), trains, then writes a resumable checkpoint that holds the
module object itself. The compiled function in the instance's __dict__ cannot be pickled:
torch.save raises PicklingError ("Can't pickle <function TinyConvNet.forward ...>: it's not the
same object as __main__.TinyConvNet.forward").
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.head(x.mean((2, 3)))


model = TinyConvNet()
model.compile()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(32, 3, 16, 16)
labels = torch.randint(0, 10, (32,))

for step in range(10):
    loss = F.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"step {step}: loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as ckpt_dir:
    path = os.path.join(ckpt_dir, "last.pt")
    torch.save({"model": model, "optimizer": opt.state_dict(), "step": step}, path)
    print(f"saved last.pt ({os.path.getsize(path)} bytes)")
