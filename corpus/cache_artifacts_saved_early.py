"""Cache: the portable cache's artifacts saved right after torch.compile(), which compiles
lazily, so nothing was compiled yet: save_cache_artifacts() returns None and the next launch
has nothing to load."""
import torch


def head(x):
    return torch.tanh(x) * 2


fast = torch.compile(head)
saved = torch.compiler.save_cache_artifacts()  # <- diagnosis
print(fast(torch.randn(8)).sum(), saved is None)
