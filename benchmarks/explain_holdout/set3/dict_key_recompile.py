"""pytorch/pytorch#151122 ("Avoid guarding on ids of optional dictionary tensor values:",
https://github.com/pytorch/pytorch/issues/151122): the same function called with a dict whose
key differs ({10: t} then {20: t}) "generates two graphs": the second call recompiles on the
dict's keys."""
import torch


@torch.compile()
def func(x):
    for k, v in x.items():
        if v is None:
            return v * 100
        else:
            return v * 200


func({10: torch.tensor([1])})
func({20: torch.tensor([100])})
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
