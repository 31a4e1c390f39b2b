"""A confidence score: log_softmax over a 0-d score made from two 0-d scalars.

https://github.com/pytorch/pytorch/issues/190418 (open): torch.compile crashes with
IndexError: list index out of range in _other_is_broadcasted_in_dim (Inductor's
joint_graph.py pattern pass) when log_softmax(dim=-1) receives a 0-d tensor produced by mul of
two 0-d scalars. Eager returns tensor(0.).
"""
import torch
import torch.nn.functional as F


def confidence(logits):
    best = logits.argmax().float()
    score = best * best
    return F.log_softmax(score, dim=-1)


logits = torch.zeros(5)
print("eager", confidence(logits))
print("compiled", torch.compile(confidence)(logits))
