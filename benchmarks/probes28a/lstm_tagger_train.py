"""Train a small BiLSTM part-of-speech tagger for a few steps, compiled."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, TAGS, PAD = 200, 7, 0


class BiLSTMTagger(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.lstm = nn.LSTM(dim, dim, num_layers=1, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(2 * dim, TAGS)

    def forward(self, tokens):
        x = self.embed(tokens)
        h, _ = self.lstm(x)
        return self.head(self.dropout(h))


model = BiLSTMTagger()
tagger = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.CrossEntropyLoss(ignore_index=-100)

tokens = torch.randint(1, VOCAB, (16, 20))
tags = torch.randint(0, TAGS, (16, 20))
for step in range(6):
    logits = tagger(tokens)
    loss = loss_fn(logits.reshape(-1, TAGS), tags.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
