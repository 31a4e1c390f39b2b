"""pytorch/pytorch#183608: "torch.compile skips out-of-range negative index check in
F.embedding". Eager raises `IndexError: index out of range in self` for index -2; the compiled
function returns a row of the table instead."""
import torch

w = torch.tensor([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0], [70.0, 80.0], [90.0, 100.0]])
idx = torch.tensor([2, -2, 4])


def fn(i, w):
    return torch.nn.functional.embedding(i, w)


torch._dynamo.reset()
compiled = torch.compile(fn, backend="inductor", fullgraph=True)(idx, w)
print("compile:", compiled.tolist())
