"""pytorch/pytorch#150613 ("Torch compile for `torch.searchsorted` failed when capturing scalar
outputs, with scalar `values` taken from `sorted_sequence`", open): with
capture_scalar_outputs=True, a value read out of the sorted tensor with .item() and looked up
in it again with torch.searchsorted compiles through Dynamo, then Inductor's searchsorted
decomposition guards on the unbacked float and the compile fails. Here: a piecewise learning
rate schedule whose lookup runs in eager and fails under a fullgraph compile."""
import torch

torch._dynamo.config.capture_scalar_outputs = True

milestones = torch.tensor([0.0, 100.0, 250.0, 400.0])
lrs = torch.tensor([1e-3, 5e-4, 1e-4, 1e-5])


def lr_at(milestones, lrs, k):
    boundary = milestones[k].item()
    seg = torch.searchsorted(milestones, boundary, right=True) - 1
    return lrs.index_select(0, seg.reshape(1))


print("eager:", [lr_at(milestones, lrs, k).item() for k in range(3)])
compiled = torch.compile(lr_at, fullgraph=True)
print("compiled:", [compiled(milestones, lrs, k).item() for k in range(3)])
