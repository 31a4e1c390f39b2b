"""pytorch/pytorch#197896 ("[dynamo] Mutations of a closure-captured list/dict are silently dropped
when they happen in a method of a locally defined class instantiated inside the compiled
function", https://github.com/pytorch/pytorch/issues/197896): eager appends on every call, the
compiled function (fullgraph=True, backend="eager") never does; the helper's log stays empty."""
import torch


def make_helper():
    log = []

    class Helper:
        def touch(self, t):
            log.append(tuple(t.shape))

    return Helper, log


Helper, log = make_helper()


@torch.compile(backend="eager", fullgraph=True)
def f(x):
    Helper().touch(x)
    return x + 1


f(torch.randn(2))
f(torch.randn(2))
assert len(log) == 2, f"log after two compiled calls: {log}"
