"""pytorch/pytorch#167596 ("[dynamo][feature] Guard on constants only if graph is specialized and not
bytecode", https://github.com/pytorch/pytorch/issues/167596): the compiled forward writes
summary[self.name] into a global dict that the caller rebinds every step; the graph is the same,
yet the guards on that dict recompile the compiled forward on the second step."""
import torch

summary = {}


class SubMod(torch.nn.Module):
    def __init__(self, name):
        super().__init__()
        self.name = name

    @torch.compile(backend="eager")
    def forward(self, x):
        out = torch.sin(x)
        self.add_summary()
        return out

    def add_summary(self):
        summary[self.name] = 0


class Mod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mod_a, self.mod_b = SubMod("mod_a"), SubMod("mod_b")

    def forward(self, x):
        global summary
        summary = {}
        return self.mod_b(self.mod_a(x))


mod = Mod()
mod(torch.randn(4))
mod(torch.randn(4))
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
