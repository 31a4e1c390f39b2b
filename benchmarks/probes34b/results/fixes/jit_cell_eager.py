from typing import Tuple

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, EMB, HID = 100, 32, 48


class LayerNormLSTMCell(nn.Module):
    def __init__(self, n_in: int, n_hid: int):
        super().__init__()
        self.ih = nn.Linear(n_in, 4 * n_hid)
        self.hh = nn.Linear(n_hid, 4 * n_hid, bias=False)
        self.ln = nn.LayerNorm(4 * n_hid)

    def forward(self, x: torch.Tensor, state: Tuple[torch.Tensor, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        h, c = state
        i, f, g, o = self.ln(self.ih(x) + self.hh(h)).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class SentimentLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.cell = LayerNormLSTMCell(EMB, HID)
        self.cls = nn.Linear(HID, 2)

    def forward(self, tokens):
        x = self.emb(tokens)
        h = c = x.new_zeros(x.size(0), HID)
        for t in range(x.size(1)):
            h, c = self.cell(x[:, t], (h, c))
        return self.cls(h)


model = SentimentLSTM()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    tokens = torch.randint(0, VOCAB, (16, 10))
    labels = torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(compiled(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
