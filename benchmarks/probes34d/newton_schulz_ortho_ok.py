import torch
import torch.nn as nn

torch.manual_seed(0)


@torch.compile
def orthogonalize(W, steps=8):
    X = W * (W.shape[0] ** 0.5 / (W.norm() + 1e-7))
    for _ in range(steps):
        A = X.T @ X
        X = 1.5 * X - 0.5 * X @ A
    return X


class OrthoMLP(nn.Module):
    def __init__(self, dim=64, depth=3):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(depth))
        self.head = nn.Linear(dim, 1)
        for layer in self.layers:
            nn.init.orthogonal_(layer.weight)

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return self.head(x)


model = OrthoMLP()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(512, 64)
y = (x[:, :8].sum(-1, keepdim=True) > 0).float()

for epoch in range(8):
    loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for layer in model.layers:
            layer.weight.copy_(orthogonalize(layer.weight))
    W = model.layers[0].weight
    gram_ok = torch.allclose(W.T @ W, torch.eye(64), atol=1e-3)
    print(f"epoch {epoch}: loss {loss.item():.4f}, W^T W = I: {gram_ok}")
