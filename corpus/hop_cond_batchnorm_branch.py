"""A torch.cond branch that writes a module buffer: a BatchNorm in training mode updates its
running statistics at every call, and a cond branch may not write its inputs. After
pytorch/pytorch#127320 ("How to use layer like torch.nn.BatchNorm2d with while_loop?") and
#115277 (HigherOrderOp capture of a buffer mutation)."""
import torch

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(8)
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        def normed(x):
            return self.bn(x)

        def linear(x):
            return self.lin(x)

        return torch.cond(x.mean() > 0, normed, linear, (x,))  # <- diagnosis


head = Head().train()
x = torch.randn(4, 8)
print(head(x).shape)
print(torch.compile(head, backend="eager")(x).shape)
