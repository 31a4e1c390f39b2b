"""pytorch/pytorch#174541 ("torch.compile: ConstDictVariable should support runtime dict lookup
for dynamic keys to avoid recompilation", https://github.com/pytorch/pytorch/issues/174541): a
module that looks up a global dict with its float attribute (`cache[self.key]`) is specialized on
each key value; every new instance recompiles (guard on self.key) and the 9th hits the recompile
limit."""
import torch
import torch.nn as nn

cache = {}


class Module(nn.Module):
    def __init__(self, key: float):
        super().__init__()
        self.key = key
        cache[key] = torch.randn(16)

    def forward(self, x):
        return x + cache[self.key]


x = torch.randn(16)
for key in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]:
    m = torch.compile(Module(key), backend="eager")
    m(x)
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
