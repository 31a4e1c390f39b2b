"""pytorch/pytorch#193288 ("torch.compile aborts if generated code contains an unhashable
constant", https://github.com/pytorch/pytorch/issues/193288, open): a torch.iinfo value live
across a graph break is stored in the resume function's co_consts; hashing that code object
raises TypeError (torch.iinfo is unhashable) inside the C++ eval-frame callback, which
terminates the process. The script is the issue's, with torch._dynamo.graph_break() as the
break. On torch 2.13 the plain run dies with SIGABRT (exit 134): "terminate called after
throwing an instance of 'pybind11::error_already_set' ... TypeError: unhashable type:
'torch.iinfo'"."""
import torch


@torch.compile
def compiled(x):
    info = torch.iinfo(x.dtype)
    result = x + info.min // 2
    torch._dynamo.graph_break()
    return torch.clamp_max(result, info.max - 3)


print(compiled(torch.tensor([1, 2, 3], dtype=torch.int8)))
