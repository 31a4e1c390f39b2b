"""One tiny Inductor graph, compiled under a cache setting the environment picks: the cache
tests (tests/test_caches.py) run it twice with the same TORCHINDUCTOR_CACHE_DIR (a miss, then
a hit), once with one Inductor config flipped (CACHE_FLIP: a miss naming that config), and
once with a custom post-grad pass that has no uuid() (CACHE_PASS: a bypass)."""
import os

import torch

if os.environ.get("CACHE_FLIP"):
    torch._inductor.config.fallback_random = True
if os.environ.get("CACHE_PASS"):
    def strip_nothing(graph):
        return None

    torch._inductor.config.post_grad_custom_post_pass = strip_nothing


@torch.compile
def f(x):
    return torch.sin(x) * 2 + 1


print("result", round(f(torch.ones(8)).sum().item(), 4))
