import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 4))


def consistency_step(model, x, y):
    # R-Drop style: two stochastic passes; the second replays the first pass's dropout
    # mask for a "same-mask" sanity term, so the RNG state is saved and restored.
    state = torch.get_rng_state()
    logits_a = model(x)
    torch.set_rng_state(state)
    logits_b = model(x)
    ce = F.cross_entropy(logits_a, y)
    same = (logits_a - logits_b).abs().max()
    return ce, same


x = torch.randn(32, 16)
y = torch.randint(0, 4, (32,))

torch.manual_seed(1)
ce_e, same_e = consistency_step(net, x, y)
print(f"eager    ce {ce_e.item():.4f} replay diff {same_e.item():.2e}")

net_c = copy.deepcopy(net)
net_c = torch.compile(net_c, fullgraph=True)
step_c = consistency_step
torch.manual_seed(1)
ce_c, same_c = step_c(net_c, x, y)
print(f"compiled ce {ce_c.item():.4f} replay diff {same_c.item():.2e}")
print(f"max |compiled - eager| ce = {(ce_c - ce_e).abs().item():.2e}")
