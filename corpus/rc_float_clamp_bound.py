"""Recompile on a Python float that changes at every call: a clamp bound passed as a float.
Automatic dynamic shapes make the float a symbol after the first recompile, but the clamp
cannot take it as a tensor, so torch specializes the value again and every new bound compiles
a new graph, up to the recompile limit. After pytorch/pytorch#194976 (a float argument of
clamp_min/clamp_max under specialize_float=False, fixed by PR #195040's specialization)."""
import torch

torch.manual_seed(0)


def clip_logits(logits, bound):
    return torch.clamp(logits, min=-bound, max=bound).softmax(-1)  # <- diagnosis


f = torch.compile(clip_logits)
x = torch.randn(4, 8) * 5
for step in range(10):
    bound = 1.0 + 0.5 * step
    out = f(x, bound)
    print(step, round(out.max().item(), 4))
