"""K-fold cross-validation with a compiled optimizer step (blind probe 47c).

After the PyTorch recipe "(beta) Compiling the optimizer with torch.compile"
(https://docs.pytorch.org/tutorials/recipes/compiling_optimizer.html, `@torch.compile(fullgraph=False)
def fn(): opt.step()`) and benchmarks/explain_holdout/set27's lr sweep (a module-level `opt` rebound
per trial). Here the user already passes the optimizer to the compiled step as an argument and
builds a fresh model and a fresh AdamW for each of ten folds, as every k-fold loop does. Dynamo
guards on the optimizer object, so each fold recompiles `opt_step` and `Adam.step`
("Cache line invalidated because L['opt'] got deallocated"); the dead entries still count, and
from fold 8 on the optimizer step runs uncompiled (recompile_limit 8).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_FOLDS = 10
X = torch.randn(400, 20)
y = (X[:, :5].sum(1) > 0).long()


def make_model():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))


@torch.compile(fullgraph=False)
def opt_step(opt):
    opt.step()


fold_ids = torch.arange(len(X)) % N_FOLDS
accs = []
for fold in range(N_FOLDS):
    train_idx, val_idx = fold_ids != fold, fold_ids == fold
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-4)
    for epoch in range(5):
        loss = F.cross_entropy(model(X[train_idx]), y[train_idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt_step(opt)
    with torch.no_grad():
        acc = (model(X[val_idx]).argmax(1) == y[val_idx]).float().mean().item()
    accs.append(acc)
    print(f"fold {fold}: val acc {acc:.3f}")
print(f"mean val acc {sum(accs) / len(accs):.3f}")
