# Discrete-time survival model: each subject has a hazard rate; the probability of an event
# inside a short observation window dt is 1 - exp(-rate*dt), computed stably as -expm1(-rate*dt)
# (the usual advice for small rate*dt). The NLL is compiled to speed up training.
import torch
import torch.nn as nn

torch.manual_seed(0)


class HazardNet(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, 1)

    def forward(self, x):
        return nn.functional.softplus(self.lin(x)).squeeze(-1)   # hazard rate per second


def survival_nll(rate, dt, event):
    # P(event in window) = 1 - exp(-rate*dt); log of that, stably
    log_p_event = torch.log(-torch.expm1(-(rate * dt).double())).to(rate.dtype)
    log_p_survive = -rate * dt
    ll = torch.where(event, log_p_event, log_p_survive)
    return -ll.mean()


model = HazardNet(6)
x = torch.randn(32, 6)
dt = torch.full((32,), 2e-9)          # windows of a few nanoseconds (sensor timestamps)
event = torch.rand(32) < 0.5

compiled_nll = torch.compile(survival_nll)
rate = model(x)
eager = survival_nll(rate, dt, event)
comp = compiled_nll(rate, dt, event)
print(f"eager nll    {eager.item():.6f}")
print(f"compiled nll {comp.item():.6f}")
print("finite:", bool(torch.isfinite(comp)))

opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(3):
    loss = compiled_nll(model(x), dt, event)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
