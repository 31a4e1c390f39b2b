"""pytorch/pytorch#148983 ("inference_mode Tensors do not always need to be guarded on",
https://github.com/pytorch/pytorch/issues/148983): a tensor made under torch.inference_mode()
and then a normal one, passed to the same compiled function, recompile it: the tensor guard
checks the dispatch key set (an inference tensor has no Autograd key), though x.sin() does not
depend on it. Seen in vLLM."""
import torch

with torch.inference_mode():
    x = torch.randn(3)
y = torch.randn(3)


@torch.compile(backend="eager", fullgraph=True)
def f(x):
    return x.sin()


f(x)
f(y)
print("frames:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
