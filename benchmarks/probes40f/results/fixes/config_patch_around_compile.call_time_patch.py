# Benchmark harness that builds compiled variants of a model under different Dynamo settings.
# build() wraps torch.compile() in torch._dynamo.config.patch(...), but torch.compile is lazy:
# Dynamo traces the frame at the first call, after the `with` block has already restored the
# old config (pytorch/pytorch#110682: the config is read when a frame is compiled, not when
# torch.compile() is called).  The "capture_scalars" variant therefore still breaks the graph
# at .item(), exactly like a default build.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GatedMixer(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.gate = nn.Linear(d, 1)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        active = (g > 0.5).sum().item()  # number of tokens kept by the gate
        scale = x.shape[0] / max(active, 1)
        return self.proj(x) * g * scale


def build(model, **dynamo_options):
    with torch._dynamo.config.patch(**dynamo_options):
        return torch.compile(model)


model = GatedMixer().eval()
variants = {"capture_scalars": build(model, capture_scalar_outputs=True)}

x = torch.randn(128, 64)
with torch.no_grad():
    ref = model(x)
    for name, fn in variants.items():
        with torch._dynamo.config.patch(capture_scalar_outputs=True):  # patch where Dynamo traces
            out = fn(x)
        print(f"{name}: sum={out.sum().item():.4f} max|diff|={(out - ref).abs().max().item():.2e}")
