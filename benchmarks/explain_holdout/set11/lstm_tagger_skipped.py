"""pytorch/pytorch#116858 ("torch.compile(...) does not pass models containing RNN layers to
custom compilers", open) and #171853 ("torch.compile fails on LSTM with "Unsupported" error",
open): Dynamo does not trace nn.LSTM/GRU/RNN unless `torch._dynamo.config.allow_rnn = True`.
Without fullgraph Dynamo "failed to handle graph break gracefully" at the LSTM call and skips
the whole forward: a compiled sequence tagger trains, but its embedding and head
never compile either, and no graph is built at all."""
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, vocab=100, dim=16, hidden=32, tags=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, tags)

    def forward(self, tokens):
        h = self.emb(tokens)
        out, _ = self.lstm(h)
        return self.head(out)


model = Tagger()
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    tokens, tags = torch.randint(0, 100, (4, 12)), torch.randint(0, 5, (4, 12))
    loss = nn.functional.cross_entropy(compiled(tokens).reshape(-1, 5), tags.reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(step, round(loss.item(), 4))
