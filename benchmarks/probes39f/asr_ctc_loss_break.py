# Tiny CTC acoustic model (Linear+tanh encoder) with a compiled loss step around F.ctc_loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, feat=8, hidden=16, vocab=6):
        super().__init__()
        self.proj = nn.Linear(feat, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        return self.out(torch.tanh(self.proj(x))).log_softmax(-1)


model = Encoder()
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def ctc_step(feats, targets, input_lengths, target_lengths):
    log_probs = model(feats).transpose(0, 1)  # (T, B, V) as ctc_loss wants
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=True)


for step in range(5):
    B, T = 3, 20
    target_lengths = [int(v) for v in torch.randint(2, 6, (B,))]
    input_lengths = [T - int(v) for v in torch.randint(0, 4, (B,))]
    targets = torch.randint(1, 6, (B, 5))  # padded (B, S_max) form
    feats = torch.randn(B, T, 8)
    loss = ctc_step(feats, targets, input_lengths, target_lengths)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
