"""Regression model whose forward builds a small input-standardiser helper.

The helper's statistics method is decorated with @torch.no_grad() (it only
measures the batch); the helper object is created inside the compiled forward
(after pytorch/pytorch#194763).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class BatchStandardizer:
    def __init__(self, eps=1e-5):
        self.eps = eps

    @torch.no_grad()
    def stats(self, x):
        return x.mean(0, keepdim=True), x.std(0, keepdim=True) + self.eps


class Regressor(nn.Module):
    def __init__(self, d=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, x):
        norm = BatchStandardizer()
        mu, sd = norm.stats(x)
        return self.net((x - mu) / sd).squeeze(-1)


def main():
    model = Regressor()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    w = torch.randn(12)
    for step in range(30):
        x = torch.randn(64, 12) * 3 + 1
        y = x @ w + 0.1 * torch.randn(64)
        loss = nn.functional.mse_loss(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            print(f"step {step + 1}: loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
