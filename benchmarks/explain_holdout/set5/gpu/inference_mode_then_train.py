"""pytorch/pytorch#135892 ("torch.compile with mode = \"max-autotune\" breaks when starting from
inference_mode", https://github.com/pytorch/pytorch/issues/135892, open, high priority, labelled
module: cuda graphs): a layer compiled with mode="max-autotune" (CUDA graphs on) and first run
under torch.inference_mode() fails when it is then run in training mode with backward; the
issue's repro (its four printed values, then the error at the first training-mode call)."""
import torch

layer = torch.nn.Linear(32, 64).bfloat16().cuda()

ex = torch.randn(8, 32).bfloat16().cuda()
layer = torch.compile(layer, mode="max-autotune")

with torch.inference_mode():
    for _ in range(3):
        res = layer(ex)
        print("value:", res.mean().item())

for _ in range(3):
    out = layer(ex)
    out.mean().backward()
    print("value:", out.mean().item())
