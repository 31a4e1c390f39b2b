# Logistic regression trained with autograd; the same compiled loss function is used
# for the training step and, under torch.no_grad(), for the validation metric that
# drives early stopping.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


@torch.compile
def bce_loss(w, b, X, y):
    logits = X @ w + b
    return F.binary_cross_entropy_with_logits(logits, y)


def main():
    n, d = 200, 5
    true_w = torch.randn(d)
    X = torch.randn(n, d)
    y = (X @ true_w + 0.3 * torch.randn(n) > 0).float()
    Xtr, ytr, Xva, yva = X[:100], y[:100], X[100:], y[100:]
    w = torch.zeros(d, requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.5)
    best, bad, patience = float("inf"), 0, 3
    for epoch in range(30):
        opt.zero_grad()
        loss = bce_loss(w, b, Xtr, ytr)
        loss.backward()
        opt.step()
        with torch.no_grad():
            val = bce_loss(w, b, Xva, yva).item()
        if val < best - 1e-4:
            best, bad = val, 0
        else:
            bad += 1
            if bad >= patience:
                break
    print(f"stopped at epoch {epoch}, best val {best:.4f}")
    print("w", [round(v, 3) for v in w.tolist()])


if __name__ == "__main__":
    main()
