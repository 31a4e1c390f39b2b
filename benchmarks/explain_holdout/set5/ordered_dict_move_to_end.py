"""pytorch/pytorch#198189 ("[dynamo] `OrderedDict.move_to_end()` on a dict passed into a compiled
function is silently dropped", https://github.com/pytorch/pytorch/issues/198189): Dynamo records
the reorder but does not replay it as a side effect, so after the compiled call the caller's
OrderedDict keeps its old key order (an LRU cache would then evict the entry just used). The
script is the issue's first function (fullgraph, backend="eager"). On torch 2.13 the plain run
prints eager ['b', 'c', 'a'] against compiled ['a', 'b', 'c'] and ends in the user's own assert."""
import collections
import torch


def touch(cache, x):
    cache.move_to_end("a")
    return x + 1


eager_cache = collections.OrderedDict(a=1, b=2, c=3)
touch(eager_cache, torch.ones(2))
compiled_cache = collections.OrderedDict(a=1, b=2, c=3)
torch.compile(touch, backend="eager", fullgraph=True)(compiled_cache, torch.ones(2))
print("eager", list(eager_cache), "compiled", list(compiled_cache))
assert list(compiled_cache) == list(eager_cache), f"order {list(compiled_cache)} != {list(eager_cache)}"
