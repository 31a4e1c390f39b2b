"""Failure under fullgraph=True: a boolean mask keeps the rows above a threshold, and the
number of rows it kept decides a Python branch. The count is data (an unbacked size), so
Dynamo cannot trace the `if` and fullgraph=True turns that into an error. After
pytorch/pytorch#114220 ("boolean masking creates a graph break due to aten.nonzero":
`t[t > 0.5]` under fullgraph=True), which torch 2.13 traces until a size decides a branch."""
import torch

torch.manual_seed(0)


def keep_confident(scores, boxes):
    keep = boxes[scores > 0.5]
    if keep.shape[0] == 0:  # <- diagnosis
        return boxes.new_zeros(1, 4)
    return keep.mean(dim=0, keepdim=True)


f = torch.compile(keep_confident, fullgraph=True, backend="eager")
scores, boxes = torch.rand(16), torch.randn(16, 4)
print(keep_confident(scores, boxes).shape)
print(f(scores, boxes).shape)
