import copy

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)


def make_member():
    return nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.Linear(32, 5))


members = [make_member().eval() for _ in range(6)]


params, buffers = stack_module_state(members)
base = copy.deepcopy(members[0]).to("meta")


@torch.compile
def ensemble_predict(models, x):

    def one(p, b, inp):
        return functional_call(base, (p, b), (inp,))

    logits = vmap(one, in_dims=(0, 0, None))(params, buffers, x)
    return logits.softmax(-1).mean(0)


with torch.no_grad():
    for batch in range(4):
        x = torch.randn(16, 12)
        probs = ensemble_predict(members, x)
        print(f"batch {batch}: mean max-prob {probs.max(-1).values.mean():.4f}")
