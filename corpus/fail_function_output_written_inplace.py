"""A compiled head writes in place, through `.data`, to the tensor a custom autograd.Function
returned as is (probes44j, after pytorch/pytorch PR #194534: gradient reversal in domain
adaptation, with feature noise autograd must not see). Eager runs it; compiled, AOTAutograd
applies the write to the real tensor after the graph ran, where autograd forbids an in-place
change of a custom Function's output."""
import torch


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 1)

    def forward(self, feat):
        feat.data.add_(torch.randn_like(feat) * 0.01)  # <- diagnosis
        return self.lin(feat)


torch.manual_seed(0)
head = torch.compile(Head(), backend="aot_eager")
feats = GradReverse.apply(torch.randn(8, 4, requires_grad=True))
print(head(feats).sum().item())
