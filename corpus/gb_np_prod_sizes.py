# After hexgrad/kokoro#91: the flattened size computed with np.prod over a tensor's shape inside
# a compiled forward. Dynamo traces NumPy as torch ops, so the product is a tensor whose value
# the view then reads back: a graph break on a data-dependent read.
import numpy as np
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(12, 3)

    def forward(self, x):
        n = int(np.prod(x.shape[1:]))
        return self.fc(x.reshape(x.shape[0], n))


head = torch.compile(Head())
print(head(torch.randn(2, 3, 4)).shape)
