"""pytorch/pytorch#175858 ("RFC: `torch._dynamo.mark_dynamic_dict` — skip key-set guards on
dict mutations", https://github.com/pytorch/pytorch/issues/175858): a compiled step that adds a
key to its input dict is guarded on the dict's key set ({"obs"}); the next call sees {"obs",
"loss"} and recompiles once ("an unnecessary recompilation")."""
import torch


@torch.compile(backend="eager")
def step(state):
    state["loss"] = (state["obs"] ** 2).mean()
    return state


state = {"obs": torch.randn(8)}
step(state)
step(state)
step(state)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
