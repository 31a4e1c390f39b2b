# CPU bf16 autocast inference of a small classifier, compiled; the program checks its own
# result against a float64 reference with torch.testing.assert_close (bf16 tolerances),
# outside the compiled region. Pattern from the CPU AMP tutorial.
import torch
import torch.nn as nn
import torch._inductor.config
torch._inductor.config.emulate_precision_casts = True

torch.manual_seed(0)
torch.use_deterministic_algorithms(True)

model = nn.Sequential(
    nn.Linear(24, 64), nn.LayerNorm(64), nn.GELU(),
    nn.Linear(64, 64), nn.SiLU(),
    nn.Linear(64, 5),
).eval()
ref = nn.Sequential(*[m for m in model]).eval()


def predict(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    return logits.float().softmax(-1)


compiled = torch.compile(predict)

with torch.no_grad():
    for step in range(3):
        x = torch.randn(16, 24)
        p = compiled(x)
        print("compiled-eager %.2e" % (p - predict(x)).abs().max())
        p64 = model.double()(x.double()).softmax(-1)
        model.float()
        torch.testing.assert_close(p.double(), p64, atol=3e-2, rtol=5e-2)
        print(step, "argmax", p.argmax(-1)[:8].tolist(), "agree",
              int((p.argmax(-1) == p64.argmax(-1)).sum()))
