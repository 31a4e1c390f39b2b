# A robust-loss helper marked allow_in_graph reads a global clipping threshold that a schedule changes.
import torch
import torch.nn as nn

CFG = {"huber_delta": 1.0}


@torch.library.custom_op('probes36c::robust_residual', mutates_args=())
def robust_residual(r: torch.Tensor) -> torch.Tensor:
    d = CFG["huber_delta"]
    return torch.where(r.abs() <= d, 0.5 * r * r, d * (r.abs() - 0.5 * d))


@robust_residual.register_fake
def _(r):
    return torch.empty_like(r)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def forward(self, x, y):
        return robust_residual(self.lin(x) - y).mean()


torch.manual_seed(0)
model = Regressor()
cmodel = torch.compile(model)
x = torch.randn(32, 3)
y = 3 * torch.randn(32, 1)

for epoch, delta in enumerate([1.0, 0.5, 0.25, 0.1]):
    CFG["huber_delta"] = delta           # anneal the Huber threshold
    with torch.no_grad():
        lc = cmodel(x, y).item()
        le = model(x, y).item()
    print(f"epoch {epoch} delta {delta}: compiled {lc:.5f} eager {le:.5f} diff {abs(lc - le):.5f}")
