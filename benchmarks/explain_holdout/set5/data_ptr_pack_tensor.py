"""pytorch/pytorch#136271 ("[triton x pt2] Offer a get_data_ptrs operator",
https://github.com/pytorch/pytorch/issues/136271, open; PR #186283 "Trace data_ptr through tensor
constructors" is newer than torch 2.13): packing data pointers into a tensor,
`torch.tensor([x.data_ptr() for x in xs])` (the Triton variable-length-list pattern), graph-breaks
because Dynamo has no graph representation for data_ptr. On torch 2.13 the plain run counts one
graph break ("Failed to convert args/kwargs to proxy ... ListVariable") at the torch.tensor line."""
import torch


@torch.compile
def pack_ptrs(xs):
    ptrs = torch.tensor([x.data_ptr() for x in xs], dtype=torch.int64)
    total = sum(x.sum() for x in xs)
    return ptrs, total


xs = [torch.randn(8) for _ in range(3)]
ptrs, total = pack_ptrs(xs)
print(ptrs.shape, total)
from torch._dynamo.utils import counters
print("graph_break", {k[:200]: v for k, v in counters["graph_break"].items()})
print("stats", dict(counters["stats"]))
