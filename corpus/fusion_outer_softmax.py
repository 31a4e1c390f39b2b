"""Fusion: a softmax over the outer dimension is not one kernel; the scheduler refuses to fuse
the exp with the division ("intermediate nodes between node1 & node2": the sum sits between
them). After pytorch/pytorch#93718 (pytorch/torchdynamo#1543), "Inductor doesn't fuse outer
dimension softmax into a single kernel"."""
import torch

torch._inductor.config.fx_graph_cache = False  # the scheduler logs fusion only on a real compile


def normalise(scores):
    return torch.softmax(scores, dim=0)  # <- diagnosis


torch.compile(normalise)(torch.randn(1024, 512))
print("ok")
