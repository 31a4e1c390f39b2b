"""Memoised random draw: a random projection drawn once by a functools.lru_cache helper, so
that the train and the test features share it (random Fourier features). Dynamo ignores the
cache wrapper (pytorch/pytorch#146598, #152994) and traces the helper at each call: compiled,
each call draws its own projection."""
import functools

import torch

torch.manual_seed(0)


@functools.lru_cache(maxsize=None)
def projection(d, n):
    return torch.randn(d, n)


def features(x):
    w = projection(x.shape[-1], 16)  # <- diagnosis
    return torch.cos(x @ w)


def gram(a, b):
    return features(a) @ features(b).T


a, b = torch.randn(8, 4), torch.randn(8, 4)
eager = gram(a, a).diagonal()
compiled = torch.compile(gram)(a, a).diagonal()
print("eager diagonal equal:", bool(torch.allclose(eager, eager)))
print("compiled self-similarity matches eager:", bool(torch.allclose(eager, compiled)))
