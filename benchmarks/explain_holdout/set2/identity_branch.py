"""pytorch/pytorch#196173 ("torch.compile produces incorrect results and loses object state
mutations for control flow based on mutable object identity",
https://github.com/pytorch/pytorch/issues/196173): `holder.current is holder.left` is folded with
no identity guard, so after a few calls the compiled function keeps one branch and stops
toggling `holder.current`; its outputs diverge from eager's."""
import torch


class Holder:
    def __init__(self):
        self.left = object()
        self.right = object()
        self.current = self.left


def fn(x, holder):
    is_left = holder.current is holder.left
    holder.current = holder.right if is_left else holder.left
    if is_left:
        return x.square()
    return -x


def run(callable_fn):
    holder = Holder()
    x = torch.tensor([2.0, 3.0])
    return [callable_fn(x, holder) for _ in range(6)]


eager = run(fn)
compiled = run(torch.compile(fn, backend="eager"))
torch.testing.assert_close(compiled, eager)
