"""An environment variable set after the compile never reaches compiled code that reads it
(probes44i, after pytorch/pytorch PR #189027): an evaluation switches test-time augmentation
on through the environment, as config-by-environment code does; the variable was unset when
Dynamo traced the read, and it guards the value of a variable that was set, not the absence
of one, so the compiled model keeps running without the augmentation."""
import os

import torch

os.environ.pop("CORPUS_TTA", None)
torch.manual_seed(0)
net = torch.nn.Linear(4, 2)


@torch.compile(backend="eager")
def predict(x):
    out = net(x)
    if os.environ.get("CORPUS_TTA", "0") == "1":  # <- diagnosis
        out = 0.5 * (out + net(x.flip(-1)))
    return out


x = torch.randn(3, 4)
plain = predict(x)
os.environ["CORPUS_TTA"] = "1"  # evaluation: test-time augmentation on
tta = predict(x)
print("augmented:", not torch.equal(plain, tta))
