# Keep Inductor's compile cache next to the run's checkpoint so that a restarted job
# compiles fast. The job scheduler reads one JSON status line from stdout on failure.
import json
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


def report_failure(etype, value, tb):
    print(json.dumps({"status": "failed", "error": etype.__name__}), flush=True)
    sys.__excepthook__(etype, value, tb)


sys.excepthook = report_failure

RUN_DIR = os.path.join(tempfile.gettempdir(), "probes40e_run_exp1")
CKPT = os.path.join(RUN_DIR, "model.pt")
os.makedirs(RUN_DIR, exist_ok=True)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 10))
torch.save(model.state_dict(), CKPT)  # initial weights, so a crashed run can resume
print("saved initial checkpoint")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(RUN_DIR, "inductor_cache")  # fix: the run dir, not the file
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 32)
    y = torch.randint(0, 10, (64,))
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
torch.save(model.state_dict(), CKPT)
print(json.dumps({"status": "ok", "loss": round(loss.item(), 4)}))
