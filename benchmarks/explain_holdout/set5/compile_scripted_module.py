"""pytorch/pytorch#150089, fixed by PR #177089 ("[dynamo] Improve error message when compiling
torch.jit.script/freeze models", https://github.com/pytorch/pytorch/pull/177089): torch.compile of
a TorchScript module cannot work (Dynamo traces Python, a ScriptModule runs in the TorchScript
runtime); since the PR the torch.compile() call itself raises a RuntimeError saying so and
suggesting to compile the original eager module. The plain run on torch 2.13 ends in that
RuntimeError at the torch.compile(scripted) line, before anything is compiled."""
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.lin(x))


scripted = torch.jit.script(Net())
x = torch.randn(2, 4)
print("scripted", scripted(x).shape)
compiled = torch.compile(scripted)
print("compiled", compiled(x).shape)
