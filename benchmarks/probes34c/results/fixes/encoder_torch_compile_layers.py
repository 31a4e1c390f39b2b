"""Sentence classifier on a 6-layer transformer encoder. Regional
compilation: every (identical) encoder layer is compiled on its own, the
embedding and pooling stay eager. Validation runs under inference_mode."""
import torch
import torch.nn as nn
import torch._dynamo.utils as _u, atexit
atexit.register(lambda: print("dynamo frames", dict(_u.counters["frames"])))


class Classifier(nn.Module):
    def __init__(self, vocab=500, dim=64, layers=6, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(dim, 4, 128, dropout=0.0, batch_first=True)
            for _ in range(layers)
        ])
        for layer in self.layers:
            pass
        self.layers = nn.ModuleList([torch.compile(l) for l in self.layers])
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = self.emb(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.head(h.mean(1))


torch.manual_seed(0)
model = Classifier()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
train_x = torch.randint(0, 500, (32, 20))
train_y = train_x[:, 0] % 4
val_x = torch.randint(0, 500, (16, 20))
val_y = val_x[:, 0] % 4

for epoch in range(3):
    model.train()
    loss = nn.functional.cross_entropy(model(train_x), train_y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    with torch.inference_mode():
        acc = (model(val_x).argmax(1) == val_y).float().mean().item()
    print(f"epoch {epoch}: train loss {loss.item():.4f}, val acc {acc:.3f}")
