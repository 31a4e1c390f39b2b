"""A multi-label training step that builds its targets with F.one_hot(labels, NUM_CLASSES).
One batch carries a corrupt label (== NUM_CLASSES, an off-by-one in the label map). Inductor
decomposes one_hot into a comparison with arange (pytorch/pytorch#144211: it used to accept
the bad label silently); torch 2.13 keeps eager's check as an assert inside the fused
generated kernel, so the error surfaces from the compiled loss kernel, not from one_hot."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 5


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, NUM_CLASSES)

    def forward(self, x):
        return self.fc(x)


def loss_fn(model, x, labels):
    logits = model(x)
    target = F.one_hot(labels, NUM_CLASSES).float()
    smoothed = target * 0.9 + 0.1 / NUM_CLASSES
    return F.binary_cross_entropy_with_logits(logits, smoothed)


model = Head()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
compiled_loss = torch.compile(loss_fn)
for step in range(3):
    x = torch.randn(8, 12)
    labels = torch.randint(0, NUM_CLASSES, (8,))
    if step == 2:
        labels[3] = NUM_CLASSES
    loss = compiled_loss(model, x, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
