"""Sentence classifier on nn.TransformerEncoder; compare compiled and eager predictions before serving."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, vocab=500, dim=32, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.encoder(self.embed(tokens), src_key_padding_mask=pad)
        return self.head(h.mean(dim=1))


model = Classifier().eval()
compiled = torch.compile(model)

lengths = [12, 7, 4, 10]
tokens = torch.zeros(len(lengths), 12, dtype=torch.long)
for i, L in enumerate(lengths):
    tokens[i, :L] = torch.randint(1, 500, (L,))

with torch.no_grad():
    eager_logits = model(tokens)
    compiled_logits = compiled(tokens)
print("eager predictions:   ", eager_logits.argmax(-1).tolist())
print("compiled predictions:", compiled_logits.argmax(-1).tolist())
print(f"max |compiled - eager| = {(compiled_logits - eager_logits).abs().max():.4f}")
