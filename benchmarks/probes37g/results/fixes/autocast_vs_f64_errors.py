import torch, torch.nn as nn
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
model = nn.Sequential(nn.Linear(24, 64), nn.LayerNorm(64), nn.GELU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 5)).eval()
def predict(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    return logits.float().softmax(-1)
compiled = torch.compile(predict)
import copy
m64 = copy.deepcopy(model).double()
with torch.no_grad():
    for step in range(3):
        x = torch.randn(16, 24)
        pe = predict(x); pc = compiled(x); p64 = m64(x.double()).softmax(-1)
        print(step, "c-e %.2e" % (pc-pe).abs().max(), "e-64 %.2e" % (pe.double()-p64).abs().max(), "c-64 %.2e" % (pc.double()-p64).abs().max())
