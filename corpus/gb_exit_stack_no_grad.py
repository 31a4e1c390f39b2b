# After pytorch/pytorch#109309: optional no_grad entered through contextlib.ExitStack inside a
# compiled forward (a frozen encoder). Dynamo does not trace ExitStack calling __enter__.
import contextlib

import torch


class Encoder(torch.nn.Module):
    def __init__(self, frozen):
        super().__init__()
        self.frozen = frozen
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        with contextlib.ExitStack() as stack:
            if self.frozen:
                stack.enter_context(torch.no_grad())
            return self.lin(x).relu()


enc = torch.compile(Encoder(frozen=True))
print(enc(torch.randn(2, 4)).shape)
