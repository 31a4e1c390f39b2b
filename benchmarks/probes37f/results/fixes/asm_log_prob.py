# Word-level GRU language model with a large-vocabulary adaptive softmax head
# (nn.AdaptiveLogSoftmaxWithLoss, as in the word_language_model / Transformer-XL recipes).
# The training step is compiled; the loss is compared with eager.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, EMB, HID = 200, 16, 32


class WordLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.proj = nn.Linear(EMB, HID)
        self.head = nn.AdaptiveLogSoftmaxWithLoss(HID, VOCAB, cutoffs=[20, 80], div_value=2.0)

    def forward(self, ids, targets):
        h = torch.tanh(self.proj(self.emb(ids)))         # (B, T, HID)
        h = h.cumsum(1) / torch.arange(1, ids.size(1) + 1).view(1, -1, 1)
        return F.nll_loss(self.head.log_prob(h.reshape(-1, HID)), targets.reshape(-1))


model = WordLM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step_model = torch.compile(model)
data = torch.randint(0, VOCAB, (4, 9))
ids, targets = data[:, :-1], data[:, 1:]

with torch.no_grad():
    eager_loss = model(ids, targets).item()
for step in range(3):
    opt.zero_grad()
    loss = step_model(ids, targets)
    loss.backward()
    opt.step()
    if step == 0:
        print(f"step 0 compiled loss {loss.item():.4f} eager loss {eager_loss:.4f}")
print(f"final loss {loss.item():.4f}")
