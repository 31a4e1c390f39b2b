"""A generator built as nn.Sequential and compiled with its .compile() method (after
pytorch/pytorch#132923): nothing is compiled."""
import torch
from torch import nn

generator = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
generator.compile()

for step in range(3):
    fake = generator(torch.randn(4, 8))
print(fake.shape)
