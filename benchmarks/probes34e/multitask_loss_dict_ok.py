import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 48), nn.GELU())
        self.cls_head = nn.Linear(48, 3)
        self.reg_head = nn.Linear(48, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h).squeeze(-1)


def multitask_loss(logits, value, label, target, reg_weight=0.5):
    cls = F.cross_entropy(logits, label)
    reg = F.smooth_l1_loss(value, target, beta=0.5)
    acc = (logits.argmax(-1) == label).float().mean()
    return {"loss": cls + reg_weight * reg, "cls": cls.detach(), "reg": reg.detach(),
            "acc": acc.item()}


model = MultiTaskNet()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3)


@torch.compile(fullgraph=True)
def forward_and_loss(x, label, target):
    logits, value = model(x)
    return multitask_loss(logits, value, label, target)


x = torch.randn(512, 12)
label = (x[:, :3].argmax(-1))
target = x[:, 3] * 2.0 + 0.1 * torch.randn(512)
for epoch in range(4):
    for i in range(0, 512, 128):
        out = forward_and_loss(x[i:i + 128], label[i:i + 128], target[i:i + 128])
        opt.zero_grad()
        out["loss"].backward()
        opt.step()
    print(f"epoch {epoch} loss {out['loss'].item():.4f} cls {out['cls'].item():.4f} "
          f"reg {out['reg'].item():.4f} acc {out['acc']:.3f}")
