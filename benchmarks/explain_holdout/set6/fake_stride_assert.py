"""pytorch/pytorch#143579 ("`assert_size_stride` failing in `_inductor/utils.py`", open) and
#184549 (open, a 2.12 regression report with the same assertion): a custom op whose fake
implementation declares different strides from the tensor the real one returns; Inductor trusts
the fake, emits assert_size_stride on the op's output, and the compiled call fails at run time
with "expected size ..., stride ... This error most often comes from a incorrect fake (aka meta)
kernel for a custom op". Reduced: the real op returns a column-major tensor, the fake a row-major
one."""
import torch


@torch.library.custom_op("set6::colmajor_scale", mutates_args=())
def colmajor_scale(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).t().contiguous().t()


@colmajor_scale.register_fake
def _(x):
    return torch.empty_like(x)


def f(x):
    y = colmajor_scale(x)
    return y.sin() + 1


x = torch.randn(8, 16)
print(f(x).sum())
print(torch.compile(f)(x).sum())
