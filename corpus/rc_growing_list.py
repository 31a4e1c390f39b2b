"""Recompile: a decoder loop passes the list of outputs so far, so each step the list is one
longer and the length guard fails; after 8 recompiles the function runs in eager. After
pytorch/torchdynamo#330 (tacotron2 hit the recompile cache limit on `len(alignments) == N`)."""
import torch


def attend(query, alignments):
    context = query
    for a in alignments:  # <- diagnosis
        context = context + 0.1 * a
    return torch.tanh(context)


step = torch.compile(attend)
query = torch.randn(4, 16)
alignments = []
for _ in range(12):
    alignments.append(step(query, alignments))
print("ok")
