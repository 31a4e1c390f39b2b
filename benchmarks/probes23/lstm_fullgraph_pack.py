"""A text classifier with an LSTM over padded batches, packed with pack_padded_sequence so the
LSTM skips the padding, compiled with fullgraph=True to make sure the whole forward is one
graph. Dynamo will not trace pack_padded_sequence (pytorch/pytorch#108096 made it a graph break;
#162375 reports the pack/pad pair under fullgraph)."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

torch.manual_seed(0)


class TextClassifier(nn.Module):
    def __init__(self, vocab=100, dim=16, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids, lengths):
        x = self.emb(ids)
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.head(h[-1])


def make_batch(n=4, t=10):
    lengths = torch.randint(3, t + 1, (n,))
    ids = torch.randint(1, 100, (n, t))
    ids[torch.arange(t)[None, :] >= lengths[:, None]] = 0
    return ids, lengths


model = TextClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
cmodel = torch.compile(model, fullgraph=True)
for step in range(2):
    ids, lengths = make_batch()
    labels = torch.randint(0, 3, (4,))
    loss = nn.functional.cross_entropy(cmodel(ids, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
