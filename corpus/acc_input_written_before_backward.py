"""Accuracy (backward): the loop copies the next batch into the forward's input buffer after
the forward and before backward(). Eager's autograd raises (a tensor saved for the backward
was modified in place); the compiled backward does not check and computes the weight's
gradient from the next batch (pytorch/pytorch#197887)."""
import torch

torch.manual_seed(0)
lin = torch.nn.Linear(4, 2)
step = torch.compile(lambda x: lin(x).square().mean())
batches = [torch.randn(3, 5, 4) for _ in range(3)]
buf = batches[0].clone()
for nxt in batches[1:]:
    loss = step(buf)
    buf.copy_(nxt)  # <- diagnosis
    loss.backward()
print(round(lin.weight.grad.norm().item(), 4))
