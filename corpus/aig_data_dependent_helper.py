"""allow_in_graph on a function Dynamo cannot put in the graph untraced: a gating helper
clamps a residual only when its values are large, a data-dependent Python `if`, and was
marked `torch.compiler.allow_in_graph` to keep the layer in one graph. The marked function
is run on fake tensors, the `if` has no value to read there, and the call breaks the graph;
Dynamo then traces the helper as a frame of its own and breaks again on the `if`. The
marking is the cause, at the helper's call.

pytorch/pytorch#88708 (allow_in_graph on a helper with a data-dependent `torch.sum()`:
"it's erroring because torch.sum() is data dependent control flow")."""
import torch


@torch.compiler.allow_in_graph
def gate(r):
    if r.abs().max() > 4.0:
        return r.clamp(-4.0, 4.0)
    return r


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return x + gate(self.fc(x))  # <- diagnosis


block = torch.compile(Block())
for scale in (1.0, 10.0):
    print(block(torch.randn(8, 16) * scale).sum().item() != 0)
