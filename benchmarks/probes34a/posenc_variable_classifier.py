import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len=512):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        x = x + Variable(self.pe[:, : x.size(1)], requires_grad=False)
        return self.dropout(x)


class SentimentEncoder(nn.Module):
    def __init__(self, vocab=200, d_model=32, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = PositionalEncoding(d_model, dropout=0.1)
        layer = nn.TransformerEncoderLayer(d_model, 4, 64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.cls = nn.Linear(d_model, n_classes)

    def forward(self, ids):
        x = self.pos(self.embed(ids) * math.sqrt(self.embed.embedding_dim))
        return self.cls(self.encoder(x).mean(dim=1))


model = SentimentEncoder()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ids, labels = torch.randint(0, 200, (16, 20)), torch.randint(0, 3, (16,))
for step in range(4):
    loss = F.cross_entropy(compiled(ids), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
