import torch
from torch import nn

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.Softplus(), nn.Linear(32, 4))

    def forward(self, x):
        return self.body(x)


enc = Encoder()
dec = nn.Linear(4, 10)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)


@torch.compiler.disable
def jacobian_penalty(x):
    return torch.autograd.functional.jacobian(enc, x, create_graph=True, vectorize=True)


@torch.compile
def contractive_loss(x, lam=0.1):
    code = enc(x)
    recon = dec(code)
    J = jacobian_penalty(x[0])
    return nn.functional.mse_loss(recon, x) + lam * J.pow(2).sum()


data = torch.randn(256, 10)
for epoch in range(3):
    total = 0.0
    for i in range(0, 256, 32):
        loss = contractive_loss(data[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / 8:.4f}")
