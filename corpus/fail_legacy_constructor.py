"""A denoising autoencoder's Gaussian noise layer, written with the legacy typed constructor
(after pytorch/pytorch#196467)."""
import torch
from torch import nn


class GaussianNoise(nn.Module):
    def __init__(self, sigma=0.1):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        return x + torch.FloatTensor(x.size()).normal_(0, self.sigma)


model = torch.compile(nn.Sequential(GaussianNoise(0.2), nn.Linear(16, 4)))
print(model(torch.randn(8, 16)).shape)
