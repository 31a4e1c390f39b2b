"""pytorch/pytorch#193288's repro (torch.compile aborts when a torch.iinfo value lives across a
graph break: hashing the resume function's code object raises TypeError inside the C++
eval-frame callback). On torch 2.13 whether it aborts depends on the order torch's modules
were first imported: with `torch._dynamo.convert_frame` or `torch._inductor.compile_fx`
imported explicitly before the program, it runs to the end. tests/test_capture_transparency.py
holds `compdiag run` to plain python on it."""
import torch


@torch.compile(backend="eager")
def compiled(x):
    info = torch.iinfo(x.dtype)
    result = x + info.min // 2
    torch._dynamo.graph_break()
    return torch.clamp_max(result, info.max - 3)


print(compiled(torch.tensor([1, 2, 3], dtype=torch.int8)))
