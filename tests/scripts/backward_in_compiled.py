"""loss.backward() inside a compiled function (tests/test_own_code.py): Dynamo breaks the graph
at backward() and runs it with its frame callback on, so AOTAutograd's backward frames, and any
wrapper compdiag put on them, are frames Dynamo may compile."""
import torch

w = torch.randn(4, requires_grad=True)


@torch.compile(backend="aot_eager")
def step(x):
    loss = (x * w).sum()
    loss.backward()
    return loss.detach()


for _ in range(2):
    step(torch.randn(4))
print("ok")
