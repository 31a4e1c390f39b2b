"""Recompile: probes47d sampler_topk_static_recompile, after test_recompiles.py's
test_no_recursive_compile_after_cache_limit_hit. A sampler compiled with `dynamic=False` is
called with another Python int `top_k` per request: under the flag the int is a constant, a
graph per value. Dropping the flag makes the int dynamic at its second value (topk takes a
dynamic k), and the values after it share one graph."""
import torch


@torch.compile(backend="eager", dynamic=False)
def sample(logits, top_k):
    vals, idx = logits.topk(top_k, dim=-1)  # <- diagnosis
    return idx.gather(-1, torch.softmax(vals, -1).argmax(-1, keepdim=True))


logits = torch.randn(2, 50)
for k in (5, 10, 20, 40):
    out = sample(logits, k)
print(out.shape)
