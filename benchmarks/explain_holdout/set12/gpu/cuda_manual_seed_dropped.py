"""pytorch/pytorch#149621, as fixed by PR #185761 ("Graph break on CUDA manual_seed in Dynamo",
https://github.com/pytorch/pytorch/pull/185761, May 2026): "CUDA seed mutators such as
torch.cuda.manual_seed and manual_seed_all were treated as in-graph Python functions by Dynamo.
They appeared in the Dynamo FX graph, but they are not ATen operations, so AOT/Inductor dropped
the side effect before codegen. A compiled function that reset the CUDA seed before a random
operation would then advance the generator across calls instead of replaying from the seed."
Here a noise function reseeds the CUDA generator before drawing, so eager returns the same noise
on every call; compiled, the two calls return different noise and the program's own check of
reproducibility fails.

Why it should still reproduce on torch 2.11: the fix (the CUDA aliases moved to the
SkipFunctionVariable list in trace_rules, beside torch.manual_seed, whose graph break dates from
2023) landed in May 2026, after 2.11; the torch 2.13 wheel lists torch.cuda.manual_seed as a
skipped function, 2.11 traced it into the graph."""
import torch


def add_noise(x):
    torch.cuda.manual_seed(1234)
    return x + 0.1 * torch.randn_like(x)


x = torch.zeros(1024, device="cuda")
print("eager, the same noise twice:", torch.equal(add_noise(x), add_noise(x)))
noisy = torch.compile(add_noise)
first = noisy(x)
second = noisy(x)
torch.testing.assert_close(second, first, rtol=0, atol=0)
print("compiled, the same noise twice")
