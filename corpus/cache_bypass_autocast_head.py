# after pytorch/pytorch PR #192555: "[AOTAutogradCache] Allow autocast enter/exit in the cached graph"
"""Cache bypass (AOTAutograd) from the user's own autocast region: a model's forward runs its
output head under torch.autocast, as FairChem's UMA does per head. AOTAutogradCache refuses
any graph holding _enter_autocast, so the compile after torch._dynamo.reset() (a restarted
process alike) is traced and partitioned again instead of loaded; the construct is the
user's `with` line."""
import torch


class Heads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = torch.nn.Linear(16, 16)
        self.energy = torch.nn.Linear(16, 1)

    def forward(self, x):
        h = self.trunk(x).tanh()
        with torch.autocast("cpu", dtype=torch.bfloat16):  # <- diagnosis
            e = self.energy(h)
        return e.float().sum()


model = Heads()
for _ in range(2):
    torch._dynamo.reset()
    torch.compile(model)(torch.randn(4, 16)).backward()
print("ok")
