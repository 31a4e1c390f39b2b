"""pytorch/pytorch#185337: "[inductor] CPU codegen does not preserve explicit float32 to float16
to float32 cast semantics". The compiled function skips the intermediate fp16 rounding, so its
output is closer to the float32 input than eager's."""
import torch


def fn(x):
    y = x.to(dtype=torch.float16).to(dtype=torch.float32)
    return y, y.sum(dim=1)


x = torch.arange(20, dtype=torch.float32).reshape(5, 4).t() / 7.0
compiled_fn = torch.compile(fn, backend="inductor", dynamic=False)
compiled_y, compiled_sum = compiled_fn(x)
print(compiled_sum)
