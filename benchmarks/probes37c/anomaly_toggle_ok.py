# Correct: a compiled model trained in a loop where anomaly detection is switched on for a
# few debug steps only; finiteness is checked outside the compiled region.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 2))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)

g = torch.Generator().manual_seed(5)
debug_steps = {1, 4}
for step in range(6):
    x = torch.randn(10, 8, generator=g)
    y = torch.randn(10, 2, generator=g)
    with torch.autograd.set_detect_anomaly(step in debug_steps):
        loss = nn.functional.mse_loss(cmodel(x), y)
        opt.zero_grad()
        loss.backward()
    gnorm = torch.stack([p.grad.norm() for p in model.parameters()]).norm()
    if not (torch.isfinite(loss) and torch.isfinite(gnorm)):
        raise FloatingPointError(f"non-finite at step {step}")
    opt.step()
    print(f"step {step}: loss {loss.item():.5f} gnorm {gnorm.item():.4f}")
