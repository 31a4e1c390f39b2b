import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Linear(32, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 1),
)
grad_norms = {}


def record_grad_norm(name):
    def hook(module, grad_input, grad_output):
        grad_norms.setdefault(name, []).append(grad_output[0].norm().detach())
    return hook


for name, layer in model.named_children():
    if isinstance(layer, nn.Linear):
        layer.register_full_backward_hook(record_grad_norm(f"fc{name}"))

torch._dynamo.config.compiled_autograd = True
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x_all = torch.randn(256, 32)
y_all = torch.sin(x_all.sum(dim=1, keepdim=True))

for epoch in range(3):
    for i in range(0, 256, 64):
        pred = compiled(x_all[i:i + 64])
        loss = nn.functional.mse_loss(pred, y_all[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")

for name, norms in grad_norms.items():
    print(f"{name}: mean grad-output norm {torch.stack(norms).mean().item():.5f}")
