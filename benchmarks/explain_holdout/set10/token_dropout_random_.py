"""pytorch/pytorch#156614 ("[dynamo] Graph break on `torch.Tensor.random_`",
https://github.com/pytorch/pytorch/issues/156614, open): Dynamo does not trace the in-place
Tensor.random_ ("Tensor.random_ op ... Use the out-of-place version of this op"), so under
fullgraph=True the compile fails at that line. Written as token dropout in a small language
model: a random keep-mask drawn with random_ inside the compiled forward.
"""
import torch
from torch import nn

emb = nn.Embedding(100, 16)
head = nn.Linear(16, 100)


@torch.compile(fullgraph=True)
def forward_with_token_dropout(tokens):
    keep = torch.empty_like(tokens).random_(0, 2)
    h = emb(tokens * keep)
    return head(h)


tokens = torch.randint(0, 100, (4, 12))
logits = forward_with_token_dropout(tokens)
print(logits.shape)
