# Small CNN classifier whose head flattens with math.prod(x.shape[1:]): plain Python
# ints, so the whole forward compiles as one graph (cousin of convnet_np_prod_flatten.py;
# the fix hexgrad/kokoro#91 applied).
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvNet(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Linear(16 * 4 * 4, n_cls)

    def forward(self, x):
        x = self.features(x)
        n_flat = math.prod(x.shape[1:])
        x = x.view(x.shape[0], n_flat)
        return self.fc(x)


model = ConvNet()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
X = torch.randn(128, 1, 16, 16)
y = (X.mean(dim=(1, 2, 3)) > 0).long() + 2 * (X[:, :, :8].mean(dim=(1, 2, 3)) > 0).long()
for epoch in range(3):
    for i in range(0, 128, 32):
        loss = F.cross_entropy(cmodel(X[i:i + 32]), y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
