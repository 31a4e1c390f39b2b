# Hand-written GRU over a padded, length-sorted batch; padded steps keep the previous hidden state
# via torch.where(t < lengths), so the last state is each sequence's true last step.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MaskedGRU(nn.Module):
    def __init__(self, vocab=20, emb=8, hidden=16, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.wi = nn.Linear(emb, 3 * hidden)
        self.wh = nn.Linear(hidden, 3 * hidden)
        self.cls = nn.Linear(hidden, classes)

    def forward(self, tokens, lengths):
        x = self.emb(tokens)
        h = x.new_zeros(x.size(0), self.wh.in_features)
        for t in range(tokens.size(1)):
            ir, iz, inn = self.wi(x[:, t]).chunk(3, -1)
            hr, hz, hn = self.wh(h).chunk(3, -1)
            r, z = torch.sigmoid(ir + hr), torch.sigmoid(iz + hz)
            h_new = (1 - z) * torch.tanh(inn + r * hn) + z * h
            h = torch.where((t < lengths).unsqueeze(1), h_new, h)
        return self.cls(h)


model = MaskedGRU()
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(3):
    lengths = torch.randint(2, 9, (6,)).sort(descending=True).values
    tokens = torch.randint(1, 20, (6, 8)) * (torch.arange(8) < lengths[:, None])
    labels = torch.randint(0, 4, (6,))
    loss = F.cross_entropy(cmodel(tokens, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
