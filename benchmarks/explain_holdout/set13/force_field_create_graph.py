"""pytorch/pytorch PR #130580 ("[AOT Autograd] Donated Buffer", https://github.com/pytorch/pytorch/pull/130580)
and PR #139669 (donated buffers on in OSS): a compiled backward that reuses (donates) its saved
buffers refuses to run under create_graph=True. A machine-learned force field takes forces as
the gradient of its energy with torch.autograd.grad(create_graph=True) inside the compiled
forward; Dynamo breaks the graph at that call, the energy graph before it is compiled with
donated buffers, and the eager grad call then runs that compiled backward with
create_graph=True. The first training step ends with "This backward function was compiled with
non-empty donated buffers which requires create_graph=False", raised at the grad call."""
import torch
import torch.nn as nn


class ForceField(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(3, 32)
        self.norm = nn.LayerNorm(32)
        self.out = nn.Linear(32, 1)

    def forward(self, r):
        energy = self.out(torch.tanh(self.norm(self.inp(r)))).sum()
        forces = -torch.autograd.grad(energy, r, create_graph=True)[0]
        return energy, forces


model = ForceField()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
step = torch.compile(model, dynamic=True)
for n_atoms in (8, 12, 16):
    r = torch.randn(n_atoms, 3, requires_grad=True)
    energy, forces = step(r)
    loss = energy ** 2 + forces.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(n_atoms, float(loss))
