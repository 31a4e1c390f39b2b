"""Multi-task regression: one shared trunk, three heads, a compiled loss combiner.

The loss helper is compiled on its own (the model stays eager); it receives
the prediction and target lists and pairs them up itself.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_TASKS = 3
TASK_WEIGHTS = [1.0, 0.5, 0.25]


class MultiHead(nn.Module):
    def __init__(self, d_in=16, d_hid=32, n_tasks=N_TASKS):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, d_hid), nn.ReLU(),
                                   nn.Linear(d_hid, d_hid), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(d_hid, 1) for _ in range(n_tasks))

    def forward(self, x):
        h = self.trunk(x)
        return [head(h).squeeze(-1) for head in self.heads]


@torch.compile
def combined_loss(preds, targets):
    total = torch.zeros(())
    k = 0
    for pred, target in zip(preds, targets):
        total = total + TASK_WEIGHTS[k] * F.smooth_l1_loss(pred, target)
        k += 1
    return total


def make_batch(bs=64, d_in=16):
    x = torch.randn(bs, d_in)
    ys = [x[:, :4].sum(-1), (x[:, 4:8] ** 2).mean(-1), torch.tanh(x[:, 8:]).sum(-1)]
    return x, ys


def main():
    model = MultiHead()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(60):
        x, ys = make_batch()
        preds = model(x)
        loss = combined_loss(preds, ys)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    x, ys = make_batch()
    preds = model(x)
    final = combined_loss(preds, ys)
    print(f"final loss {final.item():.4f}")


if __name__ == "__main__":
    main()
