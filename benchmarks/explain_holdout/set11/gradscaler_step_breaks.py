"""pytorch/pytorch#138412 (its log: a compiled AMP training step breaks the graph inside
`scaler.step(optimizer)`) and #120814 ("torch.compile() and optimizer sharp bits": the breaks
on the optimizer's methods are deliberate, open): a whole training step with a GradScaler
compiled at once. GradScaler.scale/step/update and Optimizer.zero_grad are marked by Dynamo as
not to be traced, so the one compiled function splits at every line of the AMP plumbing."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu")


@torch.compile
def train_step(x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.detach()


for step in range(4):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    print(step, float(train_step(x, y)))
