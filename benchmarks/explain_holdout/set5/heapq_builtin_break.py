"""pytorch/pytorch#106885 ("Dynamo graph break when using pyton module `heapq` (manipulates with
`list`s)", https://github.com/pytorch/pytorch/issues/106885, open; the polyfill wiring of PRs
#192129/#192130 is not in this torch): heapq's functions resolve to the C module _heapq, which
Dynamo skips, so each heappush/heappop on a plain Python list is a graph break. On torch 2.13 the
plain run prints the result and counts two breaks ("Attempted to call function marked as
skipped", the builtins `_heapq.heappush` and `_heapq.heappop`)."""
import heapq
import torch


@torch.compile
def program(x):
    h = []
    heapq.heappush(h, x)
    val = heapq.heappop(h)
    return val * torch.ones(10)


print(program(torch.tensor(1.0)))
from torch._dynamo.utils import counters
print("graph_break", {k[:200]: v for k, v in counters["graph_break"].items()})
