"""Noise-injection regularised MLP (Gaussian noise + dropout inside the compiled step),
with python `random`, numpy and torch draws OUTSIDE the compiled code driving data
augmentation.  Every stream is printed, so anything that re-runs the compiled graph
(and so draws more torch random numbers) would change the printed numbers.
Correct program: nothing to flag."""
import random
import numpy as np
import torch
import torch.nn as nn


class NoisyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Dropout(0.2), nn.Linear(32, 1))

    def forward(self, x, sigma: float):
        x = x + sigma * torch.randn_like(x)      # noise injection
        return self.net(x)


def main():
    random.seed(1); np.random.seed(1); torch.manual_seed(1)
    model = NoisyMLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    @torch.compile
    def train_step(x, y):
        pred = model(x, 0.05)
        return ((pred - y) ** 2).mean()

    w_true = torch.linspace(-1, 1, 8)
    for step in range(8):
        bs = random.choice([16, 16, 16])            # python RNG outside
        scale = float(np.random.uniform(0.5, 1.5))  # numpy RNG outside
        x = torch.randn(bs, 8) * scale              # torch RNG outside
        y = (x @ w_true).unsqueeze(1)
        loss = train_step(x, y)
        opt.zero_grad(); loss.backward(); opt.step()
        probe = torch.rand(1).item()                # torch RNG outside, after the graph
        print(f"step {step} bs={bs} scale={scale:.5f} probe={probe:.6f} loss={loss.item():.6f}")
    print("py_next", f"{random.random():.8f}")
    print("np_next", f"{np.random.rand():.8f}")
    print("torch_next", f"{torch.rand(1).item():.8f}")


if __name__ == "__main__":
    main()
