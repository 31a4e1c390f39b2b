# after sdatkinson/neural-amp-modeler#612: Ctrl-C stops a training loop with KeyboardInterrupt from inside the step
"""Abnormal end: a compiled training step is stopped by KeyboardInterrupt (here the step
raises it itself, as a handler for Ctrl-C or a stop flag would) after some compiled calls.
The run ended "interrupted": that ranks first, above the graph break Dynamo made tracing the
`raise` (its consequence, folded under it), the step's one-off `print` break and the
recompile on the step counter."""
import torch

model = torch.nn.Linear(8, 8)


def step(x, i):
    y = model(x).relu()
    if i == 0:
        print("first step")
    if i == 3:
        raise KeyboardInterrupt  # <- diagnosis
    return y.sum()


compiled = torch.compile(step)
for i in range(6):
    compiled(torch.randn(4, 8), i)
print("ok")
