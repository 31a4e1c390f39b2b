import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(40, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 5))
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
X = torch.randn(640, 40)
Y = (X @ torch.randn(40, 5)).argmax(dim=1)


def train_epoch():
    for i in range(0, 640, 64):
        loss = nn.functional.cross_entropy(compiled(X[i:i + 64]), Y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def accuracy():
    with torch.no_grad():
        return (compiled(X).argmax(1) == Y).float().mean().item()


for epoch in range(2):
    print(f"dense epoch {epoch} loss {train_epoch():.4f}")
print(f"dense accuracy {accuracy():.3f}")

to_prune = [(model[0], "weight"), (model[2], "weight")]
prune.global_unstructured(to_prune, pruning_method=prune.L1Unstructured, amount=0.6)
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
for epoch in range(2):
    print(f"pruned epoch {epoch} loss {train_epoch():.4f}")
print(f"pruned accuracy {accuracy():.3f}")

for module, name in to_prune:
    prune.remove(module, name)
zeros = sum((m.weight == 0).sum().item() for m, _ in to_prune)
total = sum(m.weight.numel() for m, _ in to_prune)
print(f"sparsity {zeros / total:.3f} accuracy after remove {accuracy():.3f}")
