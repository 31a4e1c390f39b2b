# Training with a frozen dataclass config, an Enum pooling mode and a namedtuple
# batch passed into the compiled forward; the step number, LR warmup and the
# loss history stay in Python outside the compiled code.
import copy
import enum
from collections import namedtuple
from dataclasses import dataclass
import torch
import torch.nn as nn

torch.manual_seed(0)
Batch = namedtuple("Batch", "feats mask labels")


class Pool(enum.Enum):
    MEAN = "mean"
    MAX = "max"


@dataclass(frozen=True)
class Cfg:
    d: int = 16
    n_cls: int = 3
    pool: Pool = Pool.MEAN
    base_lr: float = 0.05
    warmup: int = 3


class Classifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.enc = nn.Sequential(nn.Linear(cfg.d, 32), nn.GELU())
        self.head = nn.Linear(32, cfg.n_cls)

    def forward(self, batch: Batch):
        h = self.enc(batch.feats) * batch.mask.unsqueeze(-1)
        if self.cfg.pool is Pool.MEAN:
            h = h.sum(1) / batch.mask.sum(1, keepdim=True)
        else:
            h = h.amax(1)
        return nn.functional.cross_entropy(self.head(h), batch.labels)


cfg = Cfg()
eager_model = Classifier(cfg)
comp_model = copy.deepcopy(eager_model)
compiled = torch.compile(comp_model)
opts = [torch.optim.SGD(m.parameters(), lr=cfg.base_lr) for m in (eager_model, comp_model)]
history = {"eager": [], "compiled": []}
for step in range(6):
    feats = torch.randn(4, 5, cfg.d)
    mask = (torch.rand(4, 5) > 0.3).float()
    mask[:, 0] = 1.0
    batch = Batch(feats, mask, torch.randint(0, cfg.n_cls, (4,)))
    lr = cfg.base_lr * min(1.0, (step + 1) / cfg.warmup)
    for name, fn, opt in (("eager", eager_model, opts[0]), ("compiled", compiled, opts[1])):
        for g in opt.param_groups:
            g["lr"] = lr
        loss = fn(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history[name].append(loss.item())
    print(f"step {step} lr {lr:.4f} eager {history['eager'][-1]:.5f} compiled {history['compiled'][-1]:.5f}")
diff = max(abs(a - b) for a, b in zip(history["eager"], history["compiled"]))
print(f"max loss diff {diff:.2e}")
