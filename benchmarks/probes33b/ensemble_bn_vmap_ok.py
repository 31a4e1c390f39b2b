import copy

import torch
from torch import nn
from torch.func import functional_call, replace_all_batch_norm_modules_, stack_module_state, vmap

torch.manual_seed(0)
N_MEMBERS = 4


def make_member():
    m = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 3))
    replace_all_batch_norm_modules_(m)
    return m


members = [make_member() for _ in range(N_MEMBERS)]
params, buffers = stack_module_state(members)
base = copy.deepcopy(members[0]).to("meta")
opt = torch.optim.SGD(params.values(), lr=0.1)


def member_logits(p, b, x):
    return functional_call(base, (p, b), (x,))


@torch.compile
def ensemble_loss(params, buffers, x, y):
    logits = vmap(member_logits, in_dims=(0, 0, None))(params, buffers, x)
    return nn.functional.cross_entropy(logits.flatten(0, 1), y.repeat(N_MEMBERS))


X = torch.randn(256, 8)
Y = (X[:, 0] + X[:, 1] > 0).long() + (X[:, 2] > 1).long()
for epoch in range(4):
    for i in range(0, 256, 64):
        loss = ensemble_loss(params, buffers, X[i:i + 64], Y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
