import torch
from torch import nn
from torch.func import functional_call, grad

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 3))
params = {k: v.detach().clone() for k, v in net.named_parameters()}
buffers = {k: v.clone() for k, v in net.named_buffers()}


def loss_fn(p, b, x, y):
    return nn.functional.cross_entropy(functional_call(net, (p, b), (x,)), y)


@torch.compile
def train_step(p, b, x, y, lr=0.1):
    g = grad(loss_fn)(p, b, x, y)
    return {k: p[k] - lr * g[k] for k in p}


X = torch.randn(512, 6)
Y = (X[:, :3].sum(1) > 0).long() + (X[:, 3] > 0.5).long()
for epoch in range(3):
    for i in range(0, 512, 64):
        params = train_step(params, buffers, X[i:i + 64], Y[i:i + 64])
    net.eval()
    with torch.no_grad():
        acc = (functional_call(net, (params, buffers), (X,)).argmax(1) == Y).float().mean()
    net.train()
    print(f"epoch {epoch}: acc {acc:.3f} running_mean[0] {buffers['1.running_mean'][0]:.4f}")
