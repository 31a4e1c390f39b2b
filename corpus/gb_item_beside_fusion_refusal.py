# after pytorch/pytorch#93718: Inductor doesn't fuse outer dimension softmax into a single kernel (here next to a graph break)
"""Benign never outranks real: the outer-dimension softmax makes the scheduler refuse fusions
("intermediate nodes between node1 & node2"), a refusal that protects the schedule and is
information; the `.item()` on the next line breaks the graph in two, the real problem."""
import torch

torch._inductor.config.fx_graph_cache = False  # the scheduler logs fusion only on a real compile


def attend(scores):
    p = torch.softmax(scores, dim=0)
    top = p.max().item()  # <- diagnosis
    return p / top


torch.compile(attend)(torch.randn(256, 128))
print("ok")
