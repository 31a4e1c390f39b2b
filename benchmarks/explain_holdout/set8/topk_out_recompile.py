"""pytorch/pytorch#135859 ("torch.bmm, torch.topk with out variants set causing recompilations in
torch.compile", https://github.com/pytorch/pytorch/issues/135859, open; PR #187952: the out=
overloads of max/min/topk "recompiled on every new input shape ... the function also falls back
to eager after 8 recompiles"): with out= the compiled function specialises on each new length
where the functional topk goes dynamic after one change. A loop over growing inputs, as a
batch-size sweep would."""
import torch


@torch.compile(backend="aot_eager")
def topk_func(input, k, values, indices):
    torch.topk(input, k, out=(values, indices))
    return values * 2


for n in range(4, 16):
    x = torch.randn(n, 8)
    values, indices = torch.empty(n, 3), torch.empty(n, 3, dtype=torch.long)
    topk_func(x, 3, values, indices)
print(torch._dynamo.utils.counters["stats"])
