"""An inference worker that enforces a per-request deadline with signal.alarm (a common
"kill the worker if a request hangs" idiom). The first request triggers torch.compile, which
takes longer than the deadline, and SIGALRM's default action ends the process mid-compile."""
import signal
import torch
import torch.nn as nn

torch.manual_seed(0)
DEADLINE_S = 2


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(64), nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64))
            for _ in range(6)
        )
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        for blk in self.blocks:
            x = x + blk(x)
        return self.out(x).squeeze(-1)


model = torch.compile(Ranker().eval())


def handle(request):
    signal.alarm(DEADLINE_S)
    with torch.no_grad():
        scores = model(request)
    signal.alarm(0)
    return scores


for i in range(3):
    req = torch.randn(16, 64)
    print(i, handle(req).topk(3).indices.tolist())
