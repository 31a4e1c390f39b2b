"""Failure (runtime): backward() through a second output of one compiled graph. After
pytorch/pytorch#118739: AOTAutograd makes one CompiledFunctionBackward node for the graph and
frees its saved tensors at the first backward(), where eager keeps one node per op."""
import torch


def split(x):
    return x.unbind(0)


x = torch.randn(2, 3, requires_grad=True)
a, b = torch.compile(split, backend="aot_eager")(x.sin())
a.sum().backward()
b.sum().backward()  # <- diagnosis
print("ok")
