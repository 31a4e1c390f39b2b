"""A loss rescaled by its own sum: `.item()` under fullgraph=True compiles into one graph.

From pytorch/pytorch#196198 (open, 2026-09-07, "fullgraph=True does not enforce graph break
for Tensor.item() when capture_scalar_outputs=False"; labels module: dynamo, module: graph
breaks): with `capture_scalar_outputs` False (the default, set here as the issue does),
Dynamo calls `.item()` a graph-break trigger, yet under `fullgraph=True` it neither raises
nor breaks: it puts `item` in the one FX graph it hands the backend. The compiled result
equals eager's; the issue is about Dynamo's bookkeeping, not the program's answer.

A date-ordered sample keeps it as a check that explain does not invent a problem: the run
ends normally, one graph, no break, no recompile, and the values agree.
"""
import torch

torch.manual_seed(0)
torch._dynamo.config.capture_scalar_outputs = False


def rescale(x):
    scale = x.sum().item()
    return x * scale + 1


compiled_rescale = torch.compile(rescale, fullgraph=True)
x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
eager = rescale(x)
out = compiled_rescale(x)
print("eager   :", eager.detach())
print("compiled:", out.detach())
print("equal:", torch.equal(eager, out))
