"""pytorch/pytorch#197519 ("[inductor] FX-graph cache key ignores tensor pinned-ness",
https://github.com/pytorch/pytorch/issues/197519, open): the FX graph cache key hashes tensor
metadata without is_pinned, so the same function compiled once with pin_memory=True and, after
torch._dynamo.reset(), with pin_memory=False shares one key: the second compile silently reuses
the first compile's artifact and returns a pinned tensor (the issue: "got pinned=[True, True]").
Needs CUDA (pinned memory needs an accelerator); each run uses a fresh Inductor cache dir, as
the issue does."""
import os
import tempfile

os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="fxcache_pinned_")
import torch


def make(pin):
    def fn():
        return torch.tensor([1, 2, 3], pin_memory=pin, device="cpu")
    torch._dynamo.reset()
    return torch.compile(fn, backend="inductor")()


o1 = make(True)
o2 = make(False)
print("pinned:", o1.is_pinned(), o2.is_pinned())
assert (o1.is_pinned(), o2.is_pinned()) == (True, False), f"got pinned={[o1.is_pinned(), o2.is_pinned()]}"
