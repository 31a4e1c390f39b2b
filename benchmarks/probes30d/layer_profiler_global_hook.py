import torch
import torch.nn as nn
from torch.nn.modules.module import register_module_forward_hook

torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
activation_sparsity = {}


def sparsity_probe(module, inputs, output):
    if isinstance(module, nn.ReLU):
        activation_sparsity.setdefault(id(module), []).append((output == 0).float().mean())


for epoch in range(3):
    # profile activation sparsity during the last epoch only
    probe = register_module_forward_hook(sparsity_probe) if epoch == 2 else None
    for step in range(4):
        x = torch.randn(8, 3, 16, 16)
        y = torch.randint(0, 10, (8,))
        loss = nn.functional.cross_entropy(compiled(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if probe is not None:
        probe.remove()
    print(f"epoch {epoch} loss {loss.item():.4f}")

print(f"profiled {len(activation_sparsity)} ReLU layers")
for i, vals in enumerate(activation_sparsity.values()):
    print(f"relu #{i}: {torch.stack(vals).mean().item():.3f} of activations are zero")
