import torch
from torch import nn
from torch.func import functional_call, linearize

torch.manual_seed(0)


class Decoder(nn.Module):
    def __init__(self, latent=6, out=20):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 32), nn.Tanh(), nn.Linear(32, out))

    def forward(self, z):
        return self.net(z)


decoder = Decoder().eval()


compiled_decoder = torch.compile(decoder)


def decode(z):
    return compiled_decoder(z)


def sensitivity(z, directions):
    # one linearization, then a directional derivative per probe direction
    recon, push = linearize(decode, z)
    responses = torch.stack([push(d) for d in directions])
    return recon, responses.norm(dim=-1)


for trial in range(4):
    z = torch.randn(6)
    directions = torch.eye(6)[:3]
    recon, gains = sensitivity(z, directions)
    print(f"trial {trial}: |recon|={recon.norm():.4f} gains={[round(g, 4) for g in gains.tolist()]}")
