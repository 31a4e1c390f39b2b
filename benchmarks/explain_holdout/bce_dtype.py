"""pytorch/pytorch#171282: binary_cross_entropy_with_logits with bfloat16 input/target and a
float32 weight returns bfloat16 in eager and float32 under Inductor (the issue used CUDA; CPU
here)."""
import torch


def model_func(inp, target, weight):
    return torch.ops.aten.binary_cross_entropy_with_logits(inp, target=target, weight=weight,
                                                           pos_weight=None, reduction=2)


inp = torch.randn([4, 5, 6], dtype=torch.bfloat16)
target = torch.randn([4, 5, 6], dtype=torch.bfloat16)
weight = torch.randn([6], dtype=torch.float32)
print(torch.compile(model_func)(inp, target, weight).dtype)
