# after pytorch/pytorch#143579: `assert_size_stride` failing for a custom op (Mamba's selective_scan)
"""Failure (runtime) below Inductor's output code: a custom op whose fake (meta) implementation
gives other strides than its real kernel returns. Inductor trusts the fake when it plans the
graph and checks each custom op's output with `assert_size_stride` when the compiled code runs,
which raises "expected size 4==4, stride 1==8 at dim=0 ... Error in op:
torch.ops.demo.col_major_scale.default". The fix is the fake; the line is the op's call."""
import torch


@torch.library.custom_op("demo::col_major_scale", mutates_args=())
def col_major_scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[1], x.shape[0]).t()  # column-major, as the real kernel returns
    out.copy_(x * 2)
    return out


@col_major_scale.register_fake
def _(x):
    return torch.empty_like(x)  # row-major


@torch.compile
def scaled_column_sums(x):
    y = torch.relu(x) + 1
    z = col_major_scale(y)  # <- diagnosis
    return z.sum(dim=0)


print(scaled_column_sums(torch.randn(4, 8)))
