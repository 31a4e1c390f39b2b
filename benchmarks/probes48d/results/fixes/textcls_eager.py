"""Bag-of-words text classifier trained with a compiled model on CPU.

The model is compiled with torch.compile's default guards.
After training, the script switches to eval mode and runs the validation loop twice
(in eval mode the two passes must agree).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, EMB, CLASSES = 500, 64, 4


class BowClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.EmbeddingBag(VOCAB, EMB, mode="mean")
        self.hidden = nn.Linear(EMB, 128)
        self.dropout = nn.Dropout(p=0.5)
        self.norm = nn.LayerNorm(128)
        self.out = nn.Linear(128, CLASSES)

    def forward(self, tokens):
        h = F.relu(self.hidden(self.embed(tokens)))
        return self.out(self.norm(self.dropout(h)))


def make_split(n):
    labels = torch.randint(0, CLASSES, (n,))
    tokens = torch.randint(0, VOCAB, (n, 24))
    tokens[:, :6] = labels[:, None] * 100 + torch.randint(0, 40, (n, 6))
    return tokens, labels


model = BowClassifier()
compiled = model
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
train_x, train_y = make_split(512)
val_x, val_y = make_split(256)

model.train()
for epoch in range(3):
    for i in range(0, 512, 64):
        loss = F.cross_entropy(compiled(train_x[i : i + 64]), train_y[i : i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} train loss {loss.item():.4f}")



def evaluate():
    total_loss, correct = 0.0, 0
    for i in range(0, 256, 64):
        logits = compiled(val_x[i : i + 64])
        total_loss += F.cross_entropy(logits, val_y[i : i + 64], reduction="sum").item()
        correct += int((logits.argmax(-1) == val_y[i : i + 64]).sum())
    return total_loss / 256, correct / 256


model.eval()
for run in range(2):
    val_loss, val_acc = evaluate()
    print(f"eval pass {run}: val loss {val_loss:.4f} val accuracy {val_acc:.3f}")
