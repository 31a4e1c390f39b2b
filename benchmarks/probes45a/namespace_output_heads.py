"""Two-head regression model that returns its outputs as a types.SimpleNamespace
(out.pred / out.log_var), a common lightweight "model output" idiom.
Dynamo has no model of SimpleNamespace construction on torch 2.13; support was
proposed in pytorch/pytorch#193719 (2026-08).
"""
import types

import torch
import torch.nn as nn


class HeteroscedasticMLP(nn.Module):
    def __init__(self, d_in=6, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.mean_head = nn.Linear(hidden, 1)
        self.var_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        out = types.SimpleNamespace(pred=self.mean_head(h).squeeze(-1), log_var=self.var_head(h).squeeze(-1))
        return out


def gaussian_nll(out, y):
    return (0.5 * out.log_var + 0.5 * (y - out.pred) ** 2 / out.log_var.exp()).mean()


def main():
    torch.manual_seed(0)
    x = torch.randn(256, 6)
    y = x[:, 0] * 2.0 - x[:, 1] + 0.3 * torch.randn(256) * (1 + x[:, 2].abs())
    model = HeteroscedasticMLP()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(4):
        for i in range(0, 256, 64):
            out = cmodel(x[i:i + 64])
            loss = gaussian_nll(out, y[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} nll {loss.item():.4f}")
    with torch.no_grad():
        out = cmodel(x[:8])
    print("mean sigma", round(out.log_var.exp().sqrt().mean().item(), 4))


if __name__ == "__main__":
    main()
