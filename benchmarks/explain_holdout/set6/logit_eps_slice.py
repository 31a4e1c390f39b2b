"""pytorch/pytorch#177839 ("[inductor] torch.compile on CPU produces incorrect result when
applying `logit` on sliced tensor with specific shape", open, high priority): torch.special.logit
with eps > 0.5 on a sliced (non-contiguous) input gives different values from the same function
compiled and fed a contiguous clone, once the sliced row is 16 or more elements long. One shape
of the issue's sweep (2 x 20, cut 4); the user's assert_close is the issue's."""
import torch


def fn(x):
    return torch.special.logit(x, eps=0.51)


cfunc = torch.compile(fn, backend="eager")
x1 = torch.full((2, 20), 0.3)[:, :16]
x2 = x1.clone()
out1 = fn(x1)
out2 = cfunc(x2)
print(out1[0, :4], out2[0, :4])
torch.testing.assert_close(out1, out2, equal_nan=True)
