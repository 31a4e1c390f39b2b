"""pytorch/pytorch#178338 ("[inductor] add option to autotune at fusion time for mm", measured on
"a simple mat mul + relu script") and pytorch/torchdynamo#380 (mm vs mm + relu vs a fused
kernel): in default mode the matmul is a cuBLAS call and the relu after it runs as a second
kernel that reads the product back; max-autotune's templates can fuse it as an epilogue."""
import torch

torch.set_float32_matmul_precision("high")


def layer(a, b):
    return torch.relu(a @ b)


a = torch.randn(2048, 768, device="cuda")
b = torch.randn(768, 3072, device="cuda")
compiled = torch.compile(layer)
for _ in range(5):
    out = compiled(a, b)
torch.cuda.synchronize()
