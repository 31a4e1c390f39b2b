import torch
import torch.nn as nn

torch.manual_seed(0)


def make_backbone(depth=12, dim=48):
    return nn.Sequential(*[nn.Sequential(nn.Linear(dim, dim), nn.LayerNorm(dim), nn.GELU()) for _ in range(depth)])


backbone = make_backbone()
head = nn.Linear(48, 4)
model = nn.Sequential(backbone, head)

# ULMFiT-style fine-tuning: start with only the head trainable,
# then unfreeze one more backbone block (from the top) every epoch.
backbone.requires_grad_(False)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)

X = torch.randn(192, 48)
Y = (X[:, :4].argmax(dim=1))
for epoch in range(12):
    if epoch > 0:
        backbone[-epoch].requires_grad_(True)
    for i in range(0, 192, 32):
        logits = compiled(X[i:i + 32])
        loss = nn.functional.cross_entropy(logits, Y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"epoch {epoch} trainable params {trainable} loss {loss.item():.4f}")
