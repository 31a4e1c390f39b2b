"""pytorch/pytorch#194548 ("torch.compile silently accepts zero-batch input to Categorical that
eager correctly rejects", https://github.com/pytorch/pytorch/issues/194548, open): building a
Categorical from logits of shape (0, 2) fails in eager inside its argument validation
("cannot reshape tensor of 0 elements into shape [0, -1] ..."); the compiled function returns an
empty sample instead. Written as a policy's action sampling over a batch that came out empty.
"""
import torch


def sample_actions(logits):
    dist = torch.distributions.Categorical(logits=logits)
    return dist.sample()


logits = torch.randn(0, 2)  # an empty batch of two-action logits
print("compiled", torch.compile(sample_actions)(logits))
