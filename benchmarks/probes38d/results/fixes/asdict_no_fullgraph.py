# A small classifier returns a dataclass output and converts it to a plain dict for logging /
# serialization code downstream; the whole forward is compiled with fullgraph=True.
import dataclasses
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclasses.dataclass
class ClassifierOutput:
    logits: torch.Tensor
    loss: Optional[torch.Tensor] = None
    probs: Optional[torch.Tensor] = None


class Classifier(nn.Module):
    def __init__(self, d_in=12, n_cls=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.GELU(), nn.Linear(32, n_cls))

    def forward(self, x, labels=None):
        logits = self.net(x)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        out = ClassifierOutput(logits=logits, loss=loss, probs=logits.softmax(-1))
        return dataclasses.asdict(out)  # plain dict for the logging code


model = Classifier()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
    out = cmodel(x, y)
    opt.zero_grad()
    out["loss"].backward()
    opt.step()
    print(f"step {step} loss {out['loss'].item():.4f} p0 {out['probs'][0].max().item():.4f}")
