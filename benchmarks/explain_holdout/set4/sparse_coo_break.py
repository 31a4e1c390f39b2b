"""pytorch/pytorch#118856 ("torch._dynamo.exc.TorchRuntimeError: Failed running call_function of
torch.sparse_coo_tensor") and PR #120458 ("graph break on sparse tensors constructions"): Dynamo
does not trace sparse tensor construction; a compiled step that builds a sparse_coo_tensor from
its indices and values breaks the graph at that line (the issue's test_grad_scaling_unscale_sparse
pattern)."""
import torch


@torch.compile
def step(i, v, dense):
    s = torch.sparse_coo_tensor(i, v, torch.Size([2, 3]))
    return (s.to_dense() * 2 + dense).sum()


i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([16.0, 32.0, 64.0])
print(step(i, v, torch.ones(2, 3)))
print("breaks:", dict(torch._dynamo.utils.counters["graph_break"]))
