# Standardise features with training statistics, then fit logistic regression by
# full-batch gradient descent with a closed-form gradient (no autograd) in a compiled
# step; validation loss read with .item() outside the compiled code for early stopping.
import torch

torch.manual_seed(0)


@torch.compile
def gd_step(w, b, X, y, lr: float):
    p = torch.sigmoid(X @ w + b)
    err = p - y
    w = w - lr * (X.T @ err) / X.shape[0]
    b = b - lr * err.mean()
    return w, b


@torch.compile
def val_loss(w, b, X, y):
    z = X @ w + b
    return (torch.nn.functional.softplus(z) - y * z).mean()


def main():
    n, d = 240, 6
    X = torch.randn(n, d) * torch.linspace(0.5, 20.0, d) + torch.linspace(-3, 50, d)
    true_w = torch.randn(d)
    y = ((X - X.mean(0)) / X.std(0) @ true_w > 0).float()
    Xtr, ytr, Xva, yva = X[:120], y[:120], X[120:], y[120:]
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
    w, b = torch.zeros(d), torch.zeros(())
    best, best_w, bad = float("inf"), w, 0
    for epoch in range(40):
        w, b = gd_step(w, b, Xtr, ytr, 0.5)
        v = val_loss(w, b, Xva, yva).item()
        if v < best - 1e-4:
            best, best_w, bad = v, w, 0
        else:
            bad += 1
            if bad >= 3:
                break
    acc = (((Xva @ best_w + b) > 0).float() == yva).float().mean().item()
    print(f"epochs run {epoch + 1}, best val {best:.4f}, val acc {acc:.3f}")


if __name__ == "__main__":
    main()
