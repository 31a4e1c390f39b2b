"""timm 1.0.31 (torch 2.13.0), timm.create_model("resnet10t", pretrained=False), timm.data.Mixup
(mixup_alpha=0.8, cutmix_alpha=1.0, label smoothing) and timm.loss.SoftTargetCrossEntropy.

A timm-style training loop whose compiled step applies Mixup/CutMix itself, then the model and
the soft-target loss (the backward and the SGD step stay outside). timm's Mixup draws its
parameters with NumPy on every call: `np.random.rand() < self.mix_prob`,
`use_cutmix = np.random.rand() < self.switch_prob`, `lam = np.random.beta(...)`. Dynamo traces
np.random.rand as a tensor, breaks on the Python bool of the comparison (a data-dependent
operator) and on np.random.beta (no torch equivalent), and each resumed frame then receives the
drawn number as a Python float that it can only specialize on: the guards `___stack0 ==
0.7151...` (`use_cutmix = np.random.rand() < self.switch_prob`) and `___stack0 == 0.5315...`
(`return y1 * lam + y2 * (1. - lam)`, the mixed target) fail at every step, so the same
frames recompile every step with a new float until the recompile limit (8) is hit and they run
in eager from then on. pytorch/pytorch PR #138686 ("fix dynamo tracking numpy 2 ops": Dynamo
traces numpy.random with NumPy 2) is why np.random.rand is traced at all; PR #140346 ("Restart
dynamo analysis when we fail to tensorify away all symfloat inputs") is the restart that
turns such a float back into a specialized constant.
"""
import numpy as np
import timm
import torch
from timm.data import Mixup
from timm.loss import SoftTargetCrossEntropy

torch.manual_seed(0)
np.random.seed(0)
model = timm.create_model("resnet10t", pretrained=False, num_classes=10)
mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=10)
criterion = SoftTargetCrossEntropy()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.compile
def forward_loss(images, labels):
    images, soft_labels = mixup_fn(images, labels)
    return criterion(model(images), soft_labels)


for step in range(10):
    images = torch.randn(4, 3, 32, 32)
    labels = torch.randint(0, 10, (4,))
    loss = forward_loss(images, labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
