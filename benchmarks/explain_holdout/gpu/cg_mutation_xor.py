"""pytorch/pytorch#117281 ("Make cuda graphs skipped messages more informative") and the test
of its fix, #124700: a reduce-overhead function that mutates its input (logical_xor in place)
skips CUDA graphs, "skipping cudagraphs due to mutated inputs ... Found from" the mutating line."""
import torch


@torch.compile(mode="reduce-overhead")
def foo(x, y):
    x.logical_xor_(y)
    return x.float().sum()


x = torch.rand(64, device="cuda") > 0.5
y = torch.rand(64, device="cuda") > 0.5
for _ in range(3):
    foo(x, y)
torch.cuda.synchronize()
