# A GRUCell sentence encoder that loops only up to the longest sentence in the batch and
# keeps each sequence's last real hidden state; compiled with fullgraph=True to make sure
# the whole encoder is one graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, EMB, HID, PAD = 40, 8, 12, 0


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.cell = nn.GRUCell(EMB, HID)

    def forward(self, ids, lengths):
        x = self.emb(ids)                                 # (B, T, EMB), right-padded
        h = x.new_zeros(ids.size(0), HID)
        for t in range(ids.size(1)):
            h_new = self.cell(x[:, t], h)
            still = (t < lengths).unsqueeze(1)
            h = torch.where(still, h_new, h)
        return h


enc = Encoder()
ids = torch.tensor([[5, 9, 3, 7, 0, 0], [4, 2, 0, 0, 0, 0], [8, 8, 1, 6, 2, 3]])
lengths = (ids != PAD).sum(1)
with torch.no_grad():
    print("eager   :", enc(ids, lengths).sum(1))
    cenc = torch.compile(enc, fullgraph=True)
    print("compiled:", cenc(ids, lengths).sum(1))
