# expected fix: the model class defined once at module level
# Learning-rate sweep where the model class is defined inside the factory, so every
# trial gets a brand-new class object. torch.compile guards on type(self), the cache
# is shared by all trials (same forward code), and after 8 trials the compile cache is
# full: later trials silently run eager (pytorch/pytorch#167504, FailOnRecompileLimitHit
# "when compiling in a loop" with ___check_type_id(self) as the last reason).
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"d_in": 16, "hidden": 32, "n_cls": 3}


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg["d_in"], cfg["hidden"])
        self.fc2 = nn.Linear(cfg["hidden"], cfg["n_cls"])

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def build_model(cfg):
    return MLP(cfg)


def run_trial(lr, X, y):
    torch.manual_seed(0)
    model = torch.compile(build_model(CFG))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(5):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


torch.manual_seed(0)
X = torch.randn(64, 16)
y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
results = {}
for lr in [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5]:
    results[lr] = run_trial(lr, X, y)
    print(f"lr={lr:<5} final loss {results[lr]:.4f}")
best = min(results, key=results.get)
print(f"best lr {best}")
