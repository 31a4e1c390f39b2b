"""pytorch/pytorch PR #183780 ("[inductor] Skip cudagraph capture when CUDA caching allocator is
bypassed", https://github.com/pytorch/pytorch/pull/183780, May 2026): "PYTORCH_NO_CUDA_MEMORY_CACHING=1
... forces every allocation through cudaMalloc, bypassing the caching allocator. Cudagraph capture
pools allocations through that allocator; without it, capture appears to complete normally but the
pool tracking diverges, and the first replay fires a cryptic 'storage data ptrs are not allocated
in pool ...' error." Here a memory-debugging run (the variable is what compute-sanitizer users set)
of a reduce-overhead function: cudagraph trees' pool check (slow_path_cudagraph_asserts, on by
default) finds the function's outputs outside the graph pool and raises, and the program ends at
the compiled call with torch's advice to file an inductor aliasing bug.

Why it should still reproduce on torch 2.11: the skip with a clear reason ("cudagraph capture
requires the caching allocator; current allocator is uncached") is PR #183780's, May 2026, after
2.11; before it, cudagraph_trees.check_memory_pool (unchanged in the torch 2.13 wheel) raises
"These storage data ptrs are not allocated in pool ..." when live outputs are not in the pool.
The variable is set before torch is imported: the allocator reads it when CUDA first allocates."""
import os

os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"  # a memory-debugging run

import torch  # noqa: E402


def mlp(x, w1, w2):
    return torch.relu(x @ w1) @ w2


step = torch.compile(mlp, mode="reduce-overhead")
x = torch.randn(64, 256, device="cuda")
w1 = torch.randn(256, 256, device="cuda")
w2 = torch.randn(256, 256, device="cuda")
for _ in range(3):
    out = step(x, w1, w2)
torch.cuda.synchronize()
print(out.shape)
