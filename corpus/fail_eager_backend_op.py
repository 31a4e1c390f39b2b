# after pytorch/pytorch#100343: `[torch.compile] sum out-of-bound read`
"""Failure (runtime, backend="eager"): a stored index tensor reaches past the rows of the
input. The eager backend runs Dynamo's graph as its own Python code and writes no post-grad
graph, so the op's line comes from the Dynamo graph's node (the generated line torch.fx
prints names it), not from Inductor: the indexing raises, the sum after it never runs."""
import torch


class Pool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rows = torch.tensor([[1, 3, 2], [1, 4, 3]])

    def forward(self, x):
        picked = x[self.rows]  # <- diagnosis (the op that raised)
        return torch.sum(picked, dim=1).relu()


torch.compile(Pool(), backend="eager")(torch.randn(2, 10))
print("ok")
