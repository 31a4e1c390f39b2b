# GPU-style augmentation: a RandomApply-like policy picks a random subset of
# tensor ops each step and the compiled step applies them to the batch.
import random
import torch
import torch.nn as nn
import torch.nn.functional as F


def hflip(x): return x.flip(-1)
def vflip(x): return x.flip(-2)
def rot90(x): return x.rot90(1, (-2, -1))
def invert(x): return 1.0 - x
def blur(x): return F.avg_pool2d(x, 3, 1, 1)

OPS = [hflip, vflip, rot90, invert, blur]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(self.conv(x).relu().mean((2, 3)))


def train_step(model, x, y, ops):
    for op in ops:
        x = op(x)
    return F.cross_entropy(model(x), y)


random.seed(0)
torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step = torch.compile(train_step)
x = torch.rand(8, 3, 16, 16)
y = torch.randint(0, 4, (8,))
for it in range(10):
    ops = [op for op in OPS if random.random() < 0.5]
    loss = step(model, x, y, ops)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, [op.__name__ for op in ops], round(loss.item(), 4))
