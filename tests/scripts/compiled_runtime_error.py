"""Exits 1 from a RuntimeError compiled code raises at run time (AOTAutograd's runtime
wrapper, on a second backward through one compiled graph; pytorch/pytorch#118739)."""
import torch

a, b = torch.compile(lambda x: x.unbind(0), backend="aot_eager")(
    torch.randn(2, 3, requires_grad=True).sin())
a.sum().backward()
b.sum().backward()
