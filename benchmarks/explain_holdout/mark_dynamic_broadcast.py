"""pytorch/pytorch#145587: "mark_dynamic not working as intended with input shapes": a dimension
marked dynamic (min 2, max 10) is broadcast against a tensor of a fixed size 4, so Dynamo
refines it to the singleton 4 (`set_replacement s0 = 4 (range_refined_to_singleton)` in
infer_size) and the compile fails."""
import torch


def fn(a, b):
    return a * 2 + b


a = torch.randn(4, 3)
b = torch.randn(4, 3)
torch._dynamo.mark_dynamic(a, 0, min=2, max=10)
torch.compile(fn, backend="eager")(a, b)
