# Compile the same model under several settings, resetting Dynamo between them, and check
# each against eager under inference_mode.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.SiLU(), nn.Linear(32, 4)).eval()
x = torch.randn(8, 16)
with torch.inference_mode():
    ref = model(x)

SETTINGS = [
    {},
    {"dynamic": True},
    {"options": {"epilogue_fusion": False}},
    {"backend": "aot_eager"},
]
for s in SETTINGS:
    torch._dynamo.reset()
    cmodel = torch.compile(model, **s)
    with torch.inference_mode():
        out = cmodel(x)
    ok = torch.allclose(out, ref, atol=1e-5)
    print(s, "allclose", ok, "sum", round(out.sum().item(), 4))
