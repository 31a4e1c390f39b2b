"""Tabular churn classifier trained for a few epochs with a compiled model. After each
epoch's validation pass (a different batch size) the script calls torch._dynamo.reset(),
"to drop the validation graphs so they don't pile up in the compile cache", a snippet kept
from a notebook. The compiled run ends up slower end to end than plain eager."""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_FEAT, EPOCHS, STEPS, BS = 20, 5, 40, 64
g = torch.Generator().manual_seed(1)
w_true = torch.randn(N_FEAT, generator=g)
X = torch.randn(EPOCHS * STEPS * BS, N_FEAT, generator=g)
y = (X @ w_true + 0.3 * torch.randn(len(X), generator=g) > 0).long()
X_val = torch.randn(1000, N_FEAT, generator=g)
y_val = (X_val @ w_true > 0).long()

model = nn.Sequential(nn.Linear(N_FEAT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                      nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
cmodel = torch.compile(model)

t0 = time.process_time()
for epoch in range(EPOCHS):
    model.train()
    for i in range(STEPS):
        lo = (epoch * STEPS + i) * BS
        loss = F.cross_entropy(cmodel(X[lo:lo + BS]), y[lo:lo + BS])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = (cmodel(X_val).argmax(-1) == y_val).float().mean().item()
    print(f"epoch {epoch}: val acc {acc:.3f}")
    torch._dynamo.reset()  # free the graphs compiled this epoch before the next one
print(f"train+eval CPU time: {time.process_time() - t0:.2f} s", file=sys.stderr)
