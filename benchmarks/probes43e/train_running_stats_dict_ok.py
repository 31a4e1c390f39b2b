"""Small regression trainer whose compiled step updates state the program owns:
BatchNorm running buffers, a user dict of running-statistics tensors (updated in place),
and the global torch RNG (dropout inside the compiled model).  Data order comes from a
torch.Generator in eager code; label noise comes from the global RNG after each step, so
any extra draw from the global RNG would change every printed number."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self, d_in=16, d_hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.bn = nn.BatchNorm1d(d_hidden)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(d_hidden, 1)

    def forward(self, x):
        h = torch.relu(self.bn(self.fc1(x)))
        return self.fc2(self.drop(h)).squeeze(-1)


def make_stats():
    return {
        "loss_ema": torch.zeros(()),
        "target_mean": torch.zeros(()),
        "target_m2": torch.zeros(()),
        "count": torch.zeros((), dtype=torch.long),
    }


@torch.compile
def train_step(model, x, y, stats):
    pred = model(x)
    loss = nn.functional.mse_loss(pred, y)
    with torch.no_grad():
        # Welford-style running statistics over every target seen, in place
        n = y.numel()
        new_count = stats["count"] + n
        delta = y.mean() - stats["target_mean"]
        stats["target_mean"].add_(delta * n / new_count)
        stats["target_m2"].add_(((y - stats["target_mean"]) ** 2).sum())
        stats["count"].copy_(new_count)
        stats["loss_ema"].mul_(0.9).add_(0.1 * loss.detach())
    return loss


def main():
    X = torch.randn(512, 16)
    w_true = torch.randn(16)
    Y = X @ w_true + 0.5
    model = Regressor()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    stats = make_stats()
    data_gen = torch.Generator().manual_seed(1234)
    for epoch in range(3):
        perm = torch.randperm(X.shape[0], generator=data_gen)
        for i in range(0, X.shape[0], 64):
            idx = perm[i:i + 64]
            y = Y[idx] + 0.05 * torch.randn(idx.shape[0])  # label noise: global RNG
            loss = train_step(model, X[idx], y, stats)
            opt.zero_grad()
            loss.backward()
            opt.step()
        var = stats["target_m2"] / stats["count"]
        print(f"epoch {epoch} loss {loss.item():.6f} ema {stats['loss_ema'].item():.6f} "
              f"count {stats['count'].item()} mean {stats['target_mean'].item():.6f} var {var.item():.6f}")
    print(f"bn running_mean[:3] {[round(v, 6) for v in model.bn.running_mean[:3].tolist()]}")
    print(f"bn batches tracked {model.bn.num_batches_tracked.item()}")
    print(f"next global draw {torch.rand(1).item():.6f}")


if __name__ == "__main__":
    main()
