# Char-level LSTMCell language model trained with teacher forcing: the model steps through
# the padded batch in a Python loop, feeding the gold previous character, and the loss
# ignores padding. Compiled training vs eager training from the same weights.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, EMB, HID, PAD = 12, 8, 16, 0


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.cell = nn.LSTMCell(EMB, HID)
        self.out = nn.Linear(HID, VOCAB)

    def forward(self, ids):
        B, T = ids.shape
        h = c = ids.new_zeros(B, HID, dtype=torch.float)
        logits = []
        for t in range(T - 1):                       # teacher forcing: gold input at t
            h, c = self.cell(self.emb(ids[:, t]), (h, c))
            logits.append(self.out(h))
        logits = torch.stack(logits, 1)
        return F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1), ignore_index=PAD)


eager = CharLM()
comp = copy.deepcopy(eager)
opt_e = torch.optim.Adam(eager.parameters(), lr=1e-2)
opt_c = torch.optim.Adam(comp.parameters(), lr=1e-2)
step_c = torch.compile(comp)
batch = torch.tensor([[1, 4, 5, 6, 2, 0, 0], [1, 7, 7, 3, 9, 8, 2], [1, 10, 11, 2, 0, 0, 0]])
for step in range(4):
    for m, fwd, opt in ((eager, eager, opt_e), (comp, step_c, opt_c)):
        opt.zero_grad()
        loss = fwd(batch)
        loss.backward()
        opt.step()
        m.last = loss.item()
    print(f"step {step} eager {eager.last:.5f} compiled {comp.last:.5f}")
diff = max((a - b).abs().max().item() for a, b in zip(eager.parameters(), comp.parameters()))
print(f"max param diff {diff:.1e}")
