# Gradual unfreezing: the backbone is frozen for the first epochs; the model
# sets requires_grad on its own backbone from an epoch counter in forward().
import torch

torch.manual_seed(0)


class Classifier(torch.nn.Module):
    def __init__(self, unfreeze_at=2):
        super().__init__()
        self.backbone = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32))
        self.head = torch.nn.Linear(32, 4)
        self.unfreeze_at = unfreeze_at
        self.epoch = 0

    def forward(self, x):
        trainable = self.epoch >= self.unfreeze_at
        for p in self.backbone.parameters():
            p.requires_grad_(trainable)
        return self.head(torch.relu(self.backbone(x)))


model = Classifier()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
for epoch in range(4):
    model.epoch = epoch
    for _ in range(2):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(cmodel(x), y)
        loss.backward()
        opt.step()
    frozen = model.backbone[0].weight.grad is None
    print(f"epoch {epoch} loss {loss.item():.5f} backbone_frozen {frozen}")
