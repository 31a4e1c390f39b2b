# Focal loss for an imbalanced binary task; the user "compiles" the loss and the model
# and then times the training loop.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = torch.exp(-bce)
    a_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (a_t * (1 - p_t) ** gamma * bce).mean()


model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
model = torch.compile(model)
focal_loss = torch.compile(focal_loss)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(256, 20)
Y = (X[:, 0] + 0.5 * X[:, 1] > 1.5).float()[:, None]
t0 = time.perf_counter()
for step in range(20):
    opt.zero_grad()
    loss = focal_loss(model(X), Y)
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(f"step {step} focal {loss.item():.4f}")
elapsed = time.perf_counter() - t0
print("positives", int(Y.sum().item()))
import torch._dynamo.utils as U; print(dict(U.counters["stats"]))
