# Inference service: a small classifier returns a dataclass output that is converted to a plain
# dict for the JSON/logging code downstream; the forward is compiled with fullgraph=True and
# run under torch.no_grad (the same code runs fine without torch.compile).
import dataclasses
from typing import Optional

import torch
import torch.nn as nn

torch.manual_seed(0)


@dataclasses.dataclass
class ClassifierOutput:
    logits: torch.Tensor
    probs: torch.Tensor
    pred: Optional[torch.Tensor] = None


class Classifier(nn.Module):
    def __init__(self, d_in=12, n_cls=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.GELU(), nn.Linear(32, n_cls))

    def forward(self, x):
        logits = self.net(x)
        probs = logits.softmax(-1)
        out = ClassifierOutput(logits=logits, probs=probs, pred=probs.argmax(-1))
        return dataclasses.asdict(out)  # plain dict for the logging code


model = Classifier().eval()
cmodel = torch.compile(model)

with torch.no_grad():
    for step in range(3):
        out = cmodel(torch.randn(5, 12))
        print(f"step {step} pred {out['pred'].tolist()} pmax {out['probs'].max().item():.4f}")
