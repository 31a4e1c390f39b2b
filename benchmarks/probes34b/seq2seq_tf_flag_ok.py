import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
SRC_VOCAB, TGT_VOCAB, HID, BOS = 40, 30, 48, 1


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(SRC_VOCAB, HID)
        self.tgt_emb = nn.Embedding(TGT_VOCAB, HID)
        self.enc = nn.GRUCell(HID, HID)
        self.dec = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, TGT_VOCAB)

    def forward(self, src, tgt, teacher_forcing: bool):
        h = src.new_zeros(src.size(0), HID, dtype=torch.float)
        for t in range(src.size(1)):
            h = self.enc(self.src_emb(src[:, t]), h)
        prev = torch.full_like(tgt[:, 0], BOS)
        logits = []
        for t in range(tgt.size(1)):
            h = self.dec(self.tgt_emb(prev), h)
            step = self.out(h)
            logits.append(step)
            prev = tgt[:, t] if teacher_forcing else step.argmax(-1)
        return torch.stack(logits, 1)


model = Seq2Seq()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for it in range(8):
    src = torch.randint(0, SRC_VOCAB, (16, 6))
    tgt = torch.randint(2, TGT_VOCAB, (16, 5))
    use_tf = random.random() < 0.5
    logits = compiled(src, tgt, use_tf)
    loss = F.cross_entropy(logits.reshape(-1, TGT_VOCAB), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iter {it} teacher_forcing={use_tf} loss {loss.item():.4f}")
