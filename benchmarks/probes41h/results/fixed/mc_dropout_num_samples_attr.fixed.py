"""Uncertainty-aware regression server: Monte-Carlo dropout inference.

The compiled model draws `num_samples` stochastic forward passes in one
batched call.  Each request asks for its own quality level, and the server
loop sets it on the model before calling it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.compiler.config.allow_unspec_int_on_nn_module = True  # compdiag's printed fix


class MCDropoutRegressor(nn.Module):
    def __init__(self, n_in=8, hidden=64, p=0.2):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)
        self.p = p
        self.num_samples = 8

    def forward(self, x):
        xs = x.unsqueeze(0).expand(self.num_samples, *x.shape)
        h = F.dropout(F.relu(self.fc1(xs)), self.p, training=True)
        h = F.dropout(F.relu(self.fc2(h)), self.p, training=True)
        ys = self.out(h).squeeze(-1)  # (num_samples, batch)
        return ys.mean(0), ys.std(0)


def requests():
    # (request id, rows, requested MC samples)
    qualities = [8, 16, 32, 8, 12, 24, 48, 64, 20, 40, 10, 16]
    for rid, k in enumerate(qualities):
        yield rid, torch.randn(4, 8), k


def main():
    model = MCDropoutRegressor().eval()
    served = torch.compile(model)
    widths = []
    with torch.no_grad():
        for rid, x, k in requests():
            model.num_samples = k
            mean, std = served(x)
            widths.append(std.mean().item())
            print(f"req {rid}: samples={k} mean[0]={mean[0].item():+.3f}")
    print(f"served {len(widths)} requests, avg std {sum(widths) / len(widths):.3f}")


if __name__ == "__main__":
    main()
