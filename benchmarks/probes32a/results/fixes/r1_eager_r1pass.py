import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
Z, X = 16, 32



class MLP(nn.Module):
    def __init__(self, d_in, d_out, slope):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 64)
        self.fc2 = nn.Linear(64, d_out)
        self.slope = slope

    def forward(self, x):
        return self.fc2(F.leaky_relu(self.fc1(x), self.slope))


generator = torch.compile(MLP(Z, X, 0.0))
discriminator = torch.compile(MLP(X, 1, 0.2))

opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.0, 0.99))
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.0, 0.99))
real_data = torch.randn(512, X) * 0.5 + 1.0
r1_gamma = 10.0

for step in range(6):
    real = real_data[torch.randint(0, 512, (64,))].requires_grad_(True)
    fake = generator(torch.randn(64, Z)).detach()
    real_logits = discriminator._orig_mod(real)
    d_loss = F.softplus(discriminator(fake)).mean() + F.softplus(-real_logits).mean()
    grad_real, = torch.autograd.grad(real_logits.sum(), real, create_graph=True)
    r1 = grad_real.pow(2).sum(dim=1).mean()
    opt_d.zero_grad()
    (d_loss + 0.5 * r1_gamma * r1).backward()
    opt_d.step()

    g_loss = F.softplus(-discriminator(generator(torch.randn(64, Z)))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"step {step} d_loss {d_loss.item():.4f} r1 {r1.item():.4f} g_loss {g_loss.item():.4f}")
