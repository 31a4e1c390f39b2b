"""Image classifier whose feature adapter is compiled on its own (regional compile).

The adapter standardises the stem features with learnable per-channel
shift/scale *in place* (to save one feature-map copy) and also returns a
low-resolution context map taken before the standardisation.  The training
loop logs any step failure and exits with code 3 so the job scheduler retries.
"""
import logging
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
torch.manual_seed(0)


class FeatureAdapter(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, channels, 1, 1))

    def forward(self, h):
        ctx = F.interpolate(h, size=(8, 8), mode="bilinear", align_corners=False)
        h.sub_(self.shift).div_(self.scale)
        return h, ctx


class Classifier(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.adapter = FeatureAdapter(16)
        self.body = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.ctx_proj = nn.Conv2d(16, 32, 1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        h, ctx = self.adapter(self.stem(x))
        body = F.relu(self.body(h)).mean((2, 3))
        context = F.relu(self.ctx_proj(ctx)).mean((2, 3))
        return self.fc(torch.cat([body, context], dim=1))


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def main():
    model = Classifier()
    model.adapter = torch.compile(model.adapter)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1)
    for step in range(4):
        x = torch.rand(8, 3, 32, 32, generator=gen)
        y = torch.randint(0, 10, (8,), generator=gen)
        try:
            loss = train_step(model, opt, x, y)
        except RuntimeError as err:
            log.error("step %d failed: %s", step, str(err).splitlines()[0][:80])
            sys.exit(3)
        log.info("step %d loss %.4f", step, loss)
    log.info("finished")


if __name__ == "__main__":
    main()
