"""Program: the user's own check fails although --check-accuracy finds the compiled graph equal
to eager. After pytorch/pytorch#106171 ("torch compile changes model output"): Inductor's
reductions round differently from eager's, so exact equality fails while allclose holds."""
import torch

torch.manual_seed(0)


def head(x):
    return torch.softmax(x, dim=-1).sum(dim=-1) * x.mean()


x = torch.randn(64, 1000)
eager = head(x)
compiled = torch.compile(head)(x)
assert torch.equal(eager, compiled), "compiled output differs from eager"  # <- diagnosis
print("ok")
