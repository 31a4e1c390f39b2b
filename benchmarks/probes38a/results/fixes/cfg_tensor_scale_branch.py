# Classifier-free guidance with a class-conditional denoiser. The guidance scale
# is passed as a 0-d tensor (so that a new value does not recompile), and the
# step skips the unconditional half when guidance is off, as pipelines do.
import torch
import torch.nn as nn

torch.manual_seed(0)
N_CLASSES, D = 10, 8


class CondDenoiser(nn.Module):
    def __init__(self, h=32):
        super().__init__()
        self.emb = nn.Embedding(N_CLASSES + 1, h)  # last index = "no label"
        self.inp = nn.Linear(D + 1, h)
        self.out = nn.Linear(h, D)

    def forward(self, x, t, y):
        h = self.inp(torch.cat([x, t.expand(x.shape[0], 1)], 1)) + self.emb(y)
        return self.out(torch.nn.functional.silu(h))


model = CondDenoiser().eval()


@torch.compile
def guided_eps(x, t, y, scale):
    null = torch.full_like(y, N_CLASSES)
    eps = model(torch.cat([x, x]), t, torch.cat([y, null]))
    e_cond, e_unc = eps.chunk(2)
    return torch.where(scale > 1.0, e_unc + scale * (e_cond - e_unc), e_cond)


x = torch.randn(4, D)
y = torch.tensor([1, 3, 5, 7])
scale = torch.tensor(4.0)
with torch.no_grad():
    for i in range(8):
        t = torch.tensor([1.0 - i / 8])
        x = x - 0.1 * guided_eps(x, t, y, scale)
print("final %.4f %.4f" % (x.mean().item(), x.std().item()))
