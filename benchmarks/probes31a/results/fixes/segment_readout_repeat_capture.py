import torch
torch._dynamo.config.capture_dynamic_output_shape_ops = True
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DIM = 24


class MoleculeRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.atom_mlp = nn.Sequential(nn.Linear(DIM, DIM), nn.ReLU(), nn.Linear(DIM, DIM))
        self.head = nn.Linear(DIM, 1)

    def forward(self, atom_feats, atoms_per_mol):
        h = self.atom_mlp(atom_feats)
        mol_index = torch.repeat_interleave(torch.arange(atoms_per_mol.shape[0]), atoms_per_mol)
        pooled = torch.zeros(atoms_per_mol.shape[0], DIM).index_add_(0, mol_index, h)
        pooled = pooled / atoms_per_mol[:, None]
        return self.head(pooled).squeeze(-1)


model = MoleculeRegressor()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
cmodel = torch.compile(model)

for step in range(8):
    atoms_per_mol = torch.randint(5, 30, (16,))
    atom_feats = torch.randn(int(atoms_per_mol.sum()), DIM)
    target = torch.randn(16)
    pred = cmodel(atom_feats, atoms_per_mol)
    loss = F.mse_loss(pred, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} atoms {atom_feats.shape[0]} loss {loss.item():.4f}")
