"""Character-level GPT built from nn.TransformerEncoder (a common tutorial pattern).

The causal mask comes from nn.Transformer.generate_square_subsequent_mask and is
passed as ``mask=``; the whole model is compiled and trained for a few steps,
then greedy-decodes a few characters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
text = "the quick brown fox jumps over the lazy dog. " * 40
vocab = sorted(set(text))
stoi = {c: i for i, c in enumerate(vocab)}
data = torch.tensor([stoi[c] for c in text])


class CharGPT(nn.Module):
    def __init__(self, vocab_size, d=64, heads=4, layers=2, block=32):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d)
        self.pos = nn.Embedding(block, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab_size)

    def forward(self, idx):
        T = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=idx.device)
        h = self.encoder(h, mask=mask, is_causal=True)
        return self.lm_head(self.ln(h))


model = CharGPT(len(vocab))
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
block = 32
for step in range(6):
    ix = torch.randint(0, len(data) - block - 1, (16,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + block + 1] for i in ix])
    loss = F.cross_entropy(cmodel(x).flatten(0, 1), y.flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
ctx = data[:block].unsqueeze(0)
with torch.no_grad():
    logits = cmodel(ctx)
print("next chars:", "".join(vocab[i] for i in logits[0, -5:].argmax(-1).tolist()))
