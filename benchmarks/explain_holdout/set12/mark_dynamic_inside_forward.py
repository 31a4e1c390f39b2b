"""pytorch/pytorch#135568 ("[mark_dynamic] Assertion errors when marking tensor with outer and
inner functions", https://github.com/pytorch/pytorch/issues/135568): a model whose inner layer
marks its input's batch dimension dynamic from inside forward(), because the outer layer's
inputs arrive as *args and cannot be marked before the call. Under torch.compile the call to
torch._dynamo.mark_dynamic is itself traced, and Dynamo refuses it."""
import torch


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(6, 6)

    def forward(self, h):
        torch._dynamo.mark_dynamic(h, 0)
        return torch.relu(self.proj(h))


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(3, 6)
        self.inner = Inner()

    def forward(self, *args):
        return self.inner(self.embed(args[0]))


model = torch.compile(Outer())
for batch in (2, 5, 7):
    print(model(torch.randn(batch, 3)).shape)
