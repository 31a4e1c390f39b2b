"""pytorch/pytorch#128319 ("[dynamo] Recompilation on a counter-like attribute of nn module",
https://github.com/pytorch/pytorch/issues/128319): forward reads an int attribute that counts the
calls; Dynamo guards on its value (`L['self'].counter == N`), so each call recompiles."""
import torch


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(1, 1)
        self.counter = 0

    def forward(self, x):
        self.counter += 1
        return self.linear(x) * self.counter


mod = torch.compile(Counter(), backend="eager")
for _ in range(4):
    mod(torch.randn(1, 1))
