# Fine-tuning with a "freeze the backbone after warmup" switch kept on the model:
# forward() applies the flag with requires_grad_() on every call (a pattern from
# transfer-learning tutorials that freeze/unfreeze layers mid-training).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU())
        self.head = nn.Linear(32, 4)
        self.freeze_backbone = False

    def forward(self, x):
        return self.head(self.backbone(x))


net = Classifier()
model = torch.compile(net)
opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=0.01)
loss_fn = nn.CrossEntropyLoss()
x = torch.randn(64, 16)
y = torch.randint(0, 4, (64,))

for step in range(6):
    net.freeze_backbone = step >= 3  # linear probing after 3 warmup steps
    for p in net.backbone.parameters():
        p.requires_grad_(not net.freeze_backbone)
    logits = model(x)
    loss = loss_fn(logits, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    frozen = all(p.grad is None for p in net.backbone.parameters())
    print(f"step {step} loss {loss.item():.4f} backbone_frozen {frozen}")
