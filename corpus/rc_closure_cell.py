# after pytorch/pytorch PR #172403: closure cell names in recompile reasons (its mask_mod case)
"""Recompile on a closure cell: a score function made by a factory closes over `window` and
`scale`; the compiled caller receives a second closure whose `window` differs, and Dynamo
recompiles on `score_mod.__closure__[1].cell_contents` (the cells follow co_freevars, in
sorted order). The reason should name `window`, the variable the user wrote."""
import torch


def make_score(window, scale):
    def score(q, k):
        d = (q[:, None] - k[None, :]).abs()
        return torch.where(d <= window, d * scale, torch.zeros_like(d))  # <- diagnosis

    return score


@torch.compile(backend="eager")
def attend(score_mod, q, k):
    return score_mod(q, k).sum(-1)


q, k = torch.arange(6.0), torch.arange(6.0)
attend(make_score(1, 0.5), q, k)
attend(make_score(2, 0.5), q, k)
print("ok")
