# Reproducibility check in an eval harness: run the compiled scorer once normally, then again
# with deterministic algorithms switched on for a "bitwise reproducible" pass, then off again.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x).softmax(-1)


model = Scorer().eval()
cmodel = torch.compile(model)
x = torch.randn(8, 16)


def run(tag):
    with torch.no_grad():
        out = cmodel(x)
    print(tag, [round(v, 4) for v in out[0].tolist()])
    return out


a = run("default")
# reproducibility pass: the same inputs with deterministic kernels, compare bitwise
torch.use_deterministic_algorithms(True)
b = run("deterministic")
torch.use_deterministic_algorithms(False)
c = run("default-again")
print("max diff det", (a - b).abs().max().item(), "again", (a - c).abs().max().item())
