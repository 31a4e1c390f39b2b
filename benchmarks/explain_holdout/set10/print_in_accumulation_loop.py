"""pytorch/pytorch#112824 ("[dynamo] Skipping the entire frame when graph breaking in for/while
loop is excessive", https://github.com/pytorch/pytorch/issues/112824, open) and PR #175927
("Support graph breaks inside for loops via synthetic functions",
https://github.com/pytorch/pytorch/pull/175927, not in torch 2.13): a graph break inside a for
loop makes Dynamo skip the whole frame ("graph break in loop ... Skipping the frame and falling
back to eager"), so one progress print in the loop leaves the entire compiled function without a
graph. Written as a gradient-accumulation step that reports each micro-batch.
"""
import torch
from torch import nn

model = nn.Linear(16, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile
def accumulate(micro_batches):
    total = 0.0
    for i, (x, y) in enumerate(micro_batches):
        total = total + nn.functional.mse_loss(model(x), y)
        print(f"micro-batch {i} done")
    return total / len(micro_batches)


batches = [(torch.randn(8, 16), torch.randn(8, 4)) for _ in range(4)]
for step in range(3):
    loss = accumulate(batches)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item())
