"""Sequence regressor trained from one reused input buffer.

To overlap loading with compute, the loop copies the NEXT batch into the same
staging buffer `xbuf` right after the forward pass, before loss.backward().
The first Linear saved (a view of) `xbuf` for its weight gradient, so eager
autograd stops with "one of the variables needed for gradient computation has
been modified by an inplace operation"; the Inductor-compiled model loses that
check and silently computes weight gradients from the next batch.
Source: pytorch/pytorch#197887 (3-D F.linear / x @ w save a view of a graph
input; the version-counter check disappears under backend="inductor").
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
B, T, D, H = 16, 12, 8, 32


class SeqRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(D, H)
        self.head = nn.Linear(H, 1)

    def forward(self, x):
        h = torch.tanh(self.proj(x))          # x is [B, T, D]: 3-D F.linear
        return self.head(h).squeeze(-1).mean(-1)


def make_batches(n, w_true):
    out = []
    for _ in range(n):
        x = torch.randn(B, T, D)
        y = (x @ w_true).squeeze(-1).mean(-1)
        out.append((x, y))
    return out


def main():
    model = SeqRegressor()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    w_true = torch.randn(D, 1)
    batches = make_batches(9, w_true)

    xbuf = torch.empty(B, T, D)
    xbuf.copy_(batches[0][0])
    losses = []
    for i in range(len(batches) - 1):
        y = batches[i][1]
        pred = cmodel(xbuf)
        loss = nn.functional.mse_loss(pred, y)
        xbuf.copy_(batches[i + 1][0])         # prefetch next batch into the buffer
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    print(f"loss first {losses[0]:.5f} last {losses[-1]:.5f}")
    print(f"proj.weight grad norm (last step) {model.proj.weight.grad.norm():.6f}")
    print(f"proj.weight checksum {model.proj.weight.sum().item():.6f}")


if __name__ == "__main__":
    main()
