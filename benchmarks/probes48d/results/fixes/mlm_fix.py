"""Masked-language-model pretraining of a tiny Transformer encoder on CPU.

BERT's 80/10/10 masking runs inside the compiled training step: 15% of the tokens are
selected; of those, 80% become [MASK], 10% a random token, 10% stay.  The random
replacement tokens are drawn the way PyTorch's own examples draw class labels
(`torch.empty(n, dtype=torch.long).random_(C)`).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, SEQ, MASK_ID, PAD_ID = 200, 64, 32, 1, 0


class TinyEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(torch.zeros(SEQ, DIM))
        layer = nn.TransformerEncoderLayer(DIM, 4, 128, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.lm_head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        return self.lm_head(self.encoder(self.tok(ids) + self.pos))


model = TinyEncoder()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


@torch.compile
def mlm_step(ids):
    selected = torch.rand(ids.shape) < 0.15
    labels = torch.where(selected, ids, torch.full_like(ids, -100))
    to_mask = selected & (torch.rand(ids.shape) < 0.8)
    to_random = selected & ~to_mask & (torch.rand(ids.shape) < 0.5)
    random_tokens = torch.randint_like(ids, 2, VOCAB)
    inputs = torch.where(to_mask, torch.full_like(ids, MASK_ID), ids)
    inputs = torch.where(to_random, random_tokens, inputs)
    logits = model(inputs)
    return F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)


corpus = torch.randint(2, VOCAB, (160, SEQ))
for step in range(10):
    loss = mlm_step(corpus[step * 16 : (step + 1) * 16])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step} mlm loss {loss.item():.4f}")
