# EMA of a model's weights kept in a plain dict state ({"step": tensor, "shadow": [tensors]}),
# updated in place by a compiled function; the function also returns views of its output
# (flattened and per-row) that the caller edits in place. Compared against eager each step.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
params = [p.detach() for p in net.parameters()]


def new_state():
    return {"step": torch.zeros((), dtype=torch.long), "shadow": [p.clone() for p in params]}


def ema_update_(state, params, decay: float = 0.9):
    state["step"] += 1
    d = torch.clamp((1 + state["step"]) / (10 + state["step"]), max=decay)
    for s, p in zip(state["shadow"], params):
        s.lerp_(p, 1 - d)
    w = torch.cat([s.flatten() for s in state["shadow"]])
    return {"flat": w, "head": w[:4], "norm": w.norm()}


ema_c = torch.compile(ema_update_)
st_c, st_e = new_state(), new_state()
opt = torch.optim.SGD(net.parameters(), lr=0.2)
for step in range(4):
    x = torch.randn(16, 6)
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    oc, oe = ema_c(st_c, params), ema_update_(st_e, params)
    oc["head"].zero_()  # edits the view: "flat" must change too
    oe["head"].zero_()
    dshadow = max(float((a - b).abs().max()) for a, b in zip(st_c["shadow"], st_e["shadow"]))
    print(f"step {step} loss {loss.item():.4f} norm {oc['norm'].item():.4f} "
          f"flat[:6] {[round(v, 3) for v in oc['flat'][:6].tolist()]} "
          f"flat diff {float((oc['flat'] - oe['flat']).abs().max()):.1e} shadow diff {dshadow:.1e}")
