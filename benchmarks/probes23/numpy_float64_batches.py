"""A tabular data pipeline: features are standardised with numpy and handed to a compiled
model. One source yields float32 arrays, the other int16 counts, and numpy's mean/std of an
int array is float64, so every other batch arrives as a float64 tensor and the model
recompiles for it (a dtype guard: numpy promotes integer statistics to float64)."""
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.l2 = nn.Linear(16, 1)

    def forward(self, x):
        x = x.to(self.l1.weight.dtype)
        return self.l2(torch.relu(self.l1(x)))


def load_source(i):
    if i % 2 == 0:
        return rng.normal(size=(32, 8)).astype(np.float32)
    return rng.integers(0, 100, size=(32, 8)).astype(np.int16)


def standardise(arr):
    return (arr - arr.mean(axis=0)) / (arr.std(axis=0) + 1e-6)


model = torch.compile(Regressor())
for i in range(6):
    feats = torch.from_numpy(standardise(load_source(i)))
    pred = model(feats)
    print(i, feats.dtype, round(float(pred.mean()), 4))
