"""pytorch/pytorch#126360 ("Dynamo ignores frame using yield",
https://github.com/pytorch/pytorch/issues/126360, open): torch.compile of a generator function
compiles nothing: Dynamo refuses to trace a generator's frame ("Attempt to trace generator:
Generators cannot be compiled directly with torch.compile"), logs no graph break, and the whole
body, model calls included, runs in eager. Here a training loop written as a generator that
yields each step's loss to the caller, compiled as a whole."""
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def train_steps(num_steps):
    for _ in range(num_steps):
        x = torch.randn(32, 64)
        loss = (model(x) - x.mean(dim=1, keepdim=True)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        yield loss.detach()


compiled_steps = torch.compile(train_steps)
losses = [round(loss.item(), 4) for loss in compiled_steps(5)]
print("losses:", losses)
