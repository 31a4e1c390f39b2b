# Rectified-flow style training in bfloat16 on the CPU. The noising step is compiled on its
# own (a data-side helper); the model and the loss run eagerly. The time t is drawn with
# torch.rand(..., dtype=bfloat16), documented as uniform on [0, 1), and the loss is weighted
# by 1 / (1 - t) (the x0-prediction weighting).
# Under torch.compile, Inductor draws the uniforms in float32 and rounds them to bfloat16
# on store, so t == 1.0 exactly for ~0.2% of the samples (eager never returns 1.0):
# the weight becomes inf and the loss inf.  (cf. pytorch/torchdynamo#649, the same
# 1-inclusive rand on the Triton side.)
import torch
torch._inductor.config.fallback_random = True  # the setting compdiag names (for comparing)

torch.manual_seed(0)


class VelocityNet(torch.nn.Module):
    def __init__(self, d=32, hidden=64):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(d + 1, hidden), torch.nn.SiLU(), torch.nn.Linear(hidden, d)
        )

    def forward(self, xt, t):
        return self.net(torch.cat([xt, t], dim=1))


@torch.compile
def noise_batch(x0):
    t = torch.rand(x0.shape[0], 1, dtype=x0.dtype)  # U[0, 1) per sample
    noise = torch.randn_like(x0)
    xt = (1 - t) * x0 + t * noise
    return xt, t, noise


model = VelocityNet().to(torch.bfloat16)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
data = torch.randn(4096, 32, dtype=torch.bfloat16)

for step in range(6):
    xt, t, noise = noise_batch(data)
    v = model(xt, t)
    weight = 1.0 / (1.0 - t)
    loss = (weight * (v - (noise - data)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}  max t {t.max().item():.6f}  "
          f"t==1: {(t == 1).sum().item()}")
