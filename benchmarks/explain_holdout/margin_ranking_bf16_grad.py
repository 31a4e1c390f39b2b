"""pytorch/pytorch#185517: "[Inductor][CPU][bf16] Gradient mismatch in F.margin_ranking_loss
backward with bfloat16 tensors and float scalar". At the boundary where the loss is exactly 0
the compiled backward on the CPU gives a zero gradient, eager a non-zero one."""
import torch

x_val = 1.703125
margin_val = 1.7
input1 = torch.tensor([x_val, x_val], dtype=torch.bfloat16, requires_grad=True)
input2 = torch.tensor([0.0, 0.0], dtype=torch.bfloat16, requires_grad=True)
target = torch.tensor([1.0, 1.0], dtype=torch.bfloat16)


def fn(x, y, t):
    return torch.nn.functional.margin_ranking_loss(x, y, t, margin=margin_val, reduction="mean")


loss = torch.compile(fn)(input1, input2, target)
loss.backward()
print("grad:", input1.grad, input2.grad)
