import torch
from torch.func import grad

torch.manual_seed(0)
true_w = torch.randn(8)
X = torch.randn(512, 8)
y = X @ true_w + 0.1 * torch.randn(512)
y[::37] += 25.0  # a few corrupted targets


def batch_loss(w, xb, yb, cap=4.0):
    loss = ((xb @ w - yb) ** 2).mean()
    if loss > cap:
        loss = cap * torch.sqrt(loss / cap)
    return loss


@torch.compile
def sgd_step(w, xb, yb, lr=0.05):
    g = grad(batch_loss)(w, xb, yb)
    return w - lr * g


w = torch.zeros(8)
for epoch in range(3):
    for i in range(0, 512, 64):
        w = sgd_step(w, X[i:i + 64], y[i:i + 64])
    print(f"epoch {epoch}: |w - w*| = {(w - true_w).norm():.4f}")
