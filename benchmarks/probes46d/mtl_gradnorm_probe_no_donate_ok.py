"""Multi-task regression with a compiled shared trunk and per-task gradient-norm probing.

Every few steps (after a warm-up) the loop measures how strongly each task pulls on the
shared trunk (GradNorm-style diagnostics): it back-propagates each task loss separately,
keeping the graph alive for the second task with retain_graph=True.

Correct cousin: donated backward buffers are switched off before compiling, as the
PyTorch error message for this pattern recommends, so retain_graph=True is allowed.

Source: PyTorch test test/dynamo/test_aot_autograd.py::
AotAutogradFallbackTests::test_donated_buffer_with_retain_or_create_graph4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._functorch.config as functorch_config

# the probe below re-walks the graph, so compiled backwards must not donate buffers
functorch_config.donated_buffer = False
torch.manual_seed(0)

PROBE_EVERY = 4
STEPS = 10


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=16, d_hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_hidden), nn.ReLU()
        )
        self.head_price = nn.Linear(d_hidden, 1)
        self.head_demand = nn.Linear(d_hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.head_price(h).squeeze(-1), self.head_demand(h).squeeze(-1)


def trunk_grad_norm(model):
    sq = [p.grad.pow(2).sum() for p in model.trunk.parameters() if p.grad is not None]
    return torch.stack(sq).sum().sqrt().item()


def make_batch(n=64, d=16):
    x = torch.randn(n, d)
    price = x[:, :4].sum(-1) + 0.1 * torch.randn(n)
    demand = (x[:, 4:8] ** 2).sum(-1) + 0.1 * torch.randn(n)
    return x, price, demand


model = MultiTaskNet()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
task_w = {"price": 1.0, "demand": 1.0}

for step in range(STEPS):
    x, price, demand = make_batch()
    pred_p, pred_d = cmodel(x)
    loss_p = F.mse_loss(pred_p, price)
    loss_d = F.mse_loss(pred_d, demand)

    if step > 0 and step % PROBE_EVERY == 0:
        # per-task gradient magnitude on the shared trunk
        opt.zero_grad()
        loss_p.backward(retain_graph=True)
        g_p = trunk_grad_norm(model)
        opt.zero_grad()
        loss_d.backward(retain_graph=True)
        g_d = trunk_grad_norm(model)
        task_w["price"], task_w["demand"] = g_d / (g_p + g_d), g_p / (g_p + g_d)
        print(f"step {step}: probe |g_price|={g_p:.3f} |g_demand|={g_d:.3f}")

    opt.zero_grad()
    total = task_w["price"] * loss_p + task_w["demand"] * loss_d
    total.backward()
    opt.step()
    print(f"step {step}: loss_price={loss_p.item():.4f} loss_demand={loss_d.item():.4f}")

print("final task weights", {k: round(v, 3) for k, v in task_w.items()})
