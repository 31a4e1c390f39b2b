# after pytorch/pytorch#194768: [torch.compile] nn.init.trunc_normal_ fails with data-dependent branching under fullgraph=True
"""Failure (dynamo) raised deep inside torch's own code: with a tensor `std`,
nn.init.trunc_normal_ compares `mean` against the bounds in a Python `if`, a data-dependent
branch that fullgraph=True cannot break at. torch's "from user code:" names the frames; the
user's line is the call into torch.nn.init, not the compiled function's def."""
import torch


@torch.compile(fullgraph=True, backend="eager")
def init_weight(w, std):
    return torch.nn.init.trunc_normal_(w, std=std)  # <- diagnosis


init_weight(torch.empty(4, 4), torch.tensor(0.02))
print("ok")
