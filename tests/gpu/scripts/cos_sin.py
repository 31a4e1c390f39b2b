# torch's getting-started example: cos then sin, which Inductor fuses into one Triton kernel.
import torch


def fn(x):
    a = torch.cos(x)
    b = torch.sin(a)
    return b


new_fn = torch.compile(fn, backend="inductor")
input_tensor = torch.randn(10000).to(device="cuda:0")
a = new_fn(input_tensor)
torch.cuda.synchronize()
assert torch.allclose(a, torch.sin(torch.cos(input_tensor)), atol=1e-5)
