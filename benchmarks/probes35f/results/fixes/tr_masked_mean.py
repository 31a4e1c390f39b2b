# Text classifier with nn.TransformerEncoder and a key padding mask (tutorial style):
# mean-pool the encoder output, train a few steps, then evaluate under torch.no_grad().
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D, PAD, NCLS = 50, 32, 0, 3


class TransformerClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(1, 16, D) * 0.02)
        layer = nn.TransformerEncoderLayer(D, nhead=4, dim_feedforward=64, dropout=0.1,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.fc = nn.Linear(D, NCLS)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        x = self.embedding(tokens) + self.pos[:, :tokens.size(1)]
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        keep = (~pad_mask).unsqueeze(-1).float()
        return self.fc((x * keep).sum(1) / keep.sum(1))


def make_batch(n):
    lengths = torch.randint(3, 12, (n,))
    tokens = torch.randint(1, VOCAB, (n, 12))
    tokens[torch.arange(12)[None, :] >= lengths[:, None]] = PAD
    return tokens, (tokens[:, 0] % NCLS)


model = TransformerClassifier()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    tokens, labels = make_batch(16)
    loss = nn.functional.cross_entropy(cmodel(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"train loss {loss.item():.4f}")

model.eval()
tokens, labels = make_batch(64)
with torch.no_grad():
    logits = cmodel(tokens)
    ref = model(tokens); print('max |compiled-eager|', (logits - ref).abs().max().item())
print("eval logits[0]", [round(v, 4) for v in logits[0].tolist()])
print(f"eval acc {(logits.argmax(1) == labels).float().mean().item():.4f}")
