"""pytorch/pytorch#172382 ("[dynamo] Include closure cell name in recompilation reasons",
https://github.com/pytorch/pytorch/issues/172382): a closure made twice with another captured
`n2` recompiles the compiled caller on `cl.__closure__[1].cell_contents == 1`; the reason should
say that `n2` changed."""
import torch


def make_cl(n1, n2):
    def inner(x):
        return x + n1 + n2

    return inner


@torch.compile(backend="eager")
def fn(cl, x):
    return cl(x)


fn(make_cl(0, 1), torch.ones(3))
fn(make_cl(0, 2), torch.ones(3))
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
