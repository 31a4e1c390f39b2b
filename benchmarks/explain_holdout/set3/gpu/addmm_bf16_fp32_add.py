"""pytorch/pytorch#159492 ("`torch.compile` appears to be missing dtype checks before
dispatching to native functions", https://github.com/pytorch/pytorch/issues/159492): a bfloat16
Linear without bias followed by adding a float32 tensor works in eager (type promotion), but
Inductor fuses the matmul and the add into addmm, which needs operands of the same width, and
the compiled call crashes."""
import torch

a = torch.nn.Linear(1024, 1024, bias=False).cuda()
a = a.bfloat16()
w = torch.randn(1024, 1024, device="cuda")


@torch.compile
def func():
    x = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
    x = a(x)
    x = x + w
    return x


print(func())
print(func())
