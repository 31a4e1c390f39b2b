# Char-level RNN trained with truncated BPTT: the last hidden state of each chunk seeds the next.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, H = 12, 16


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.wx = nn.Linear(H, H)
        self.wh = nn.Linear(H, H, bias=False)
        self.head = nn.Linear(H, V)

    def forward(self, tokens, h):
        x = self.emb(tokens)
        outs = []
        for t in range(tokens.size(1)):
            h = torch.tanh(self.wx(x[:, t]) + self.wh(h))
            outs.append(h)
        out = torch.stack(outs, 1)
        return self.head(out), out[:, -1]


model = CharRNN()
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randint(0, V, (4, 41))
bptt = 8
h = torch.zeros(4, H)
for k in range(0, 40, bptt):
    inp, tgt = data[:, k:k + bptt], data[:, k + 1:k + 1 + bptt]
    logits, h = cmodel(inp, h.detach().contiguous())
    loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(k, round(loss.item(), 4))
