"""Failure (dynamo): pytorch/pytorch#188151 (probes45g cond_dynamic_int_attn_bias). torch.cond
under dynamic=True whose branches build a tensor from int sizes: each branch's output has the
stride `Max(1, s)`, which cond's check does not take for the running product of the sizes
("cond's output stride is not a simple accumulative multiplication"). Runs in eager and with
dynamic=False."""
import torch


@torch.compile(dynamic=True, fullgraph=True)
def pick_mask(rows: int, cols: int, upper: torch.Tensor):
    def upper_fn():
        return torch.ones(rows, cols).triu(1)

    def none_fn():
        return torch.zeros(rows, cols)

    return torch.cond(upper, upper_fn, none_fn)  # <- diagnosis


for n in (5, 9):
    print(pick_mask(n, n, torch.tensor(n % 2 == 1)).sum().item())
