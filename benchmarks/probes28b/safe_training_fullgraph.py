"""A long-running regression job: the model is compiled with fullgraph=True for one fused graph,
and Dynamo errors are suppressed so that a compile problem can never kill the run."""
import time

import torch
import torch.nn as nn

torch._dynamo.config.suppress_errors = True
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(48, 256), nn.SiLU(), nn.Linear(256, 256), nn.SiLU())
        self.out = nn.Linear(256, 1)

    def forward(self, x):
        h = self.body(x)
        if h.abs().max() > 50.0:
            h = h.clamp(-50.0, 50.0)
        return self.out(h)


model = Regressor()
cmodel = torch.compile(model, fullgraph=True)
opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
X = torch.randn(20, 128, 48)
Y = X.sum(-1, keepdim=True).tanh()
t0 = time.perf_counter()
for step in range(20):
    loss = nn.functional.mse_loss(cmodel(X[step]), Y[step])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(f"step {step} loss {loss.item():.4f}")
print("training done")
