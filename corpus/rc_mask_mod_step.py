# after vllm-project/vllm#27178: torch._dynamo hit recompile_limit using FlexAttention backend ("Is this producing a new mask-mod function on every iteration?")
"""Recompile limit from a guard on a value that changes every step: each step builds a new
mask function whose body reads the loop variable, a global int; Dynamo inlines the lambda and
guards `G['step'] == N`, so every step recompiles until the limit leaves `masked` in eager."""
import torch


def masked(x, mask_mod):
    return torch.where(mask_mod(x), x, 0.0)


f = torch.compile(masked, backend="eager")
for step in range(12):
    f(torch.randn(4), lambda t: t > step * 0.1)  # <- diagnosis
print("ok")
