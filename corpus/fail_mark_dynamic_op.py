"""Specialisation: a dimension marked dynamic with mark_dynamic that an op coerces to a constant
(matmul's inner dimensions must equal the static operand's) fails the compile with a
ConstraintViolationError. After pytorch/pytorch#148040 ("mark_dynamic hard fails the compile if
the dimension is coerced to static")."""
import torch


@torch.compile(backend="eager")
def fn(static, dynamic):
    return torch.matmul(static, dynamic)  # <- diagnosis


static = torch.randn(10, 10)
dynamic = torch.randn(10, 10)
torch._dynamo.mark_dynamic(dynamic, 0)
fn(static, dynamic)
