"""pytorch/pytorch#166525 ("Inductor Fails with `AttributeError: 'int' object has no attribute
'meta'` for `torch.while_loop` Containing Scalar Values in Loop State",
https://github.com/pytorch/pytorch/issues/166525, open): a torch.while_loop whose carried state
holds a plain Python int counter next to tensors runs in eager and under the eager/aot_eager
backends, and fails when Inductor compiles it. Written as a user's fixed-count accumulation:
add two bias tensors STEPS times, the step counter carried as an int.
"""
import torch

STEPS = 3


def repeat_accumulate(a, b):
    def keep_going(i, acc_a, acc_b):
        return i < STEPS

    def body(i, acc_a, acc_b):
        return i + 1, acc_a + a, acc_b + b

    return torch.while_loop(keep_going, body, (0, torch.zeros_like(a), torch.zeros_like(b)))


torch.manual_seed(0)
a = torch.randn(2, 2)
b = torch.randn(2, 2)
n, acc_a, acc_b = repeat_accumulate(a, b)
print("eager   ", n, round(acc_a.sum().item(), 4), round(acc_b.sum().item(), 4))
n, acc_a, acc_b = torch.compile(repeat_accumulate)(a, b)
print("compiled", n, round(acc_a.sum().item(), 4), round(acc_b.sum().item(), 4))
