"""A benchmark harness that compares compile settings on one function: reset, compile, time,
then the next setting. The second setting asks for fullgraph=True to get "one graph"; the
function reads a count with .item() to size its output (a plain run: the default setting breaks
at the .item(), the fullgraph=True compile after the reset does not)."""
import time
import torch


def topk_mean(scores, lengths):
    k = int(lengths.max().item())
    top = scores.topk(k, dim=-1).values
    return top.mean(dim=-1)


def bench(**compile_kwargs):
    torch._dynamo.reset()
    f = torch.compile(topk_mean, **compile_kwargs)
    scores = torch.randn(32, 64)
    lengths = torch.randint(1, 16, (32,))
    t0 = time.perf_counter()
    for _ in range(5):
        f(scores, lengths)
    print(compile_kwargs, f"{time.perf_counter() - t0:.2f}s")


bench()
bench(fullgraph=True)
