# Contractive autoencoder: the loss adds the Frobenius norm of the encoder's
# Jacobian (torch.func.jacrev). A forward hook on the encoder's first layer
# keeps its activations for a sparsity monitor printed after each step.
import torch
import torch.nn as nn
from torch.func import jacrev, vmap

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(12, 6), nn.Sigmoid())
dec = nn.Sequential(nn.Linear(6, 12))
acts = []
cenc = torch.compile(enc)


def keep_acts(module, inputs, output):
    acts.append(output.detach())


enc[0].register_forward_hook(keep_acts)



def cae_loss(x, lam):
    z = enc(x)
    recon = nn.functional.mse_loss(dec(z), x)
    J = vmap(jacrev(cenc))(x)
    return recon + lam * J.pow(2).sum(dim=(1, 2)).mean()


opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
x = torch.rand(16, 12)
for step in range(3):
    acts.clear()
    loss = cae_loss(x, 0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} mean act {acts[0].mean().item():.4f}")
