"""pytorch/pytorch#110803: "Toggling model.train() causes guard failures": a training loop that
evaluates every few steps switches a compiled model between train() and eval(); the guard on
`training` fails at the evaluation call."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 1))
compiled = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate(x):
    model.eval()
    with torch.no_grad():
        out = compiled(x)
    model.train()
    return out


for step in range(4):
    loss = compiled(torch.randn(4, 8)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 2 == 1:
        evaluate(torch.randn(4, 8))
print("ok")
