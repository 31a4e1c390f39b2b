"""pytorch/pytorch#118334 ("Using autograd.Functions defined in torch/ cause graph breaks",
https://github.com/pytorch/pytorch/issues/118334, open): an autograd.Function that lives in a
torch module on Dynamo's skip list (ViewNestedFromBuffer, torch/nested) is not traced, so calling
it breaks the graph; the issue's repro. On torch 2.13 the plain run counts one break, "Attempted
to call function marked as skipped ... ViewNestedFromBuffer.forward ... file matches
MOD_SKIPLIST", at the .apply line, and returns a NestedTensor."""
import torch
from torch.nested._internal.nested_tensor import ViewNestedFromBuffer


def fn(values, offsets):
    return ViewNestedFromBuffer.apply(values.cos(), offsets).sin()


fn_c = torch.compile(fn, backend="aot_eager", dynamic=True)
values = torch.rand((12, 8), requires_grad=True)
offsets = torch.tensor([0, 1, 2, 5, 8, 9, 12])
out = fn_c(values, offsets)
print(type(out).__name__)
from torch._dynamo.utils import counters
print("graph_break", dict(counters["graph_break"]))
