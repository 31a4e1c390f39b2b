"""Cost ranking: a recompile every step outranks a one-off graph break inside library code.
The module keeps its decay step as an int attribute that forward() increments
(pytorch/pytorch#115711: one new graph per call); a compiled set-up helper deep-copies a tensor
once, which breaks the graph inside the stdlib's copy module (GB4198, pytorch/pytorch#115122,
"Graph breaks from copy.deepcopy")."""
import copy

import torch


class Decay(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.step = 0

    def forward(self, x):
        self.step += 1  # <- diagnosis
        return self.proj(x) * (0.9 ** self.step)


@torch.compile(backend="eager")
def snapshot(w):
    return copy.deepcopy(w) * 1


snapshot(torch.randn(8))
model = torch.compile(Decay(), backend="eager")
for _ in range(6):
    model(torch.randn(2, 8))
print("ok")
