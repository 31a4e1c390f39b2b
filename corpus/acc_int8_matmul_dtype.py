"""Accuracy: the compiled int8 batched matmul returns int64 where eager returns int8 (the values
agree; the dtype does not). After pytorch/pytorch#191308 ("[Inductor][CPU] torch.compile changes
int8 batched matmul output dtype to int64")."""
import torch


def model(a, b):
    return torch.matmul(a, b)  # <- diagnosis


a = torch.ones((1, 1, 2), dtype=torch.int8)
b = torch.ones((1, 2, 2), dtype=torch.int8)
print(torch.compile(model, dynamic=False)(a, b).dtype)
