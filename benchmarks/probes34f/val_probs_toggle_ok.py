import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Linear(8, 32), nn.Dropout(0.3), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 2)
)


@torch.compile
def predict_probs(net, x):
    was_training = net.training
    net.eval()
    probs = net(x).softmax(-1)
    net.train(was_training)
    return probs


opt = torch.optim.SGD(model.parameters(), lr=0.1)
x_val = torch.randn(128, 8)
y_val = (x_val[:, 0] > 0).long()
for step in range(24):
    xb = torch.randn(64, 8)
    yb = (xb[:, 0] > 0).long()
    loss = nn.functional.cross_entropy(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 7:
        acc = (predict_probs(model, x_val).argmax(-1) == y_val).float().mean()
        print(f"step {step + 1} loss {loss.item():.4f} val acc {acc:.3f} training={model.training}")
