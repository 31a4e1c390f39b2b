# Correct program: a multi-task head trained with numerically stable losses on logits that
# are pushed past float32 exp() overflow (|logit| up to ~100): cross-entropy with label
# smoothing, BCE-with-logits and a logsigmoid-based focal term. The whole training step
# loss function is compiled (so its backward is compiled by AOTAutograd too); the SGD step
# runs after it. Compiled and eager agree to float32 rounding (both stay finite); a good
# tool must not call this a miscompile.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self, d=64, classes=100, tags=20):
        super().__init__()
        self.cls = torch.nn.Linear(d, classes)
        self.tag = torch.nn.Linear(d, tags)

    def forward(self, x):
        return self.cls(x), self.tag(x)


def losses(model, x, y, tags):
    logits, tag_logits = model(x)
    ce = F.cross_entropy(logits, y, label_smoothing=0.1)
    bce = F.binary_cross_entropy_with_logits(tag_logits, tags)
    p_t = torch.where(tags > 0.5, tag_logits, -tag_logits)
    focal = (-(1 - torch.sigmoid(p_t)) ** 2 * F.logsigmoid(p_t)).mean()
    lse = torch.logsumexp(logits, dim=1).mean()
    return ce + bce + focal + 1e-4 * lse ** 2


model = Head()
with torch.no_grad():  # large weights: logits reach ~+-100
    model.cls.weight.mul_(40.0)
    model.tag.weight.mul_(40.0)
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
compiled_losses = torch.compile(losses)


x = torch.randn(256, 64)
y = torch.randint(0, 100, (256,))
tags = (torch.rand(256, 20) > 0.7).float()
for step in range(5):
    loss = compiled_losses(model, x, y, tags)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f}")
with torch.no_grad():
    lg, _ = model(x)
print(f"max |logit| {lg.abs().max().item():.1f}")
