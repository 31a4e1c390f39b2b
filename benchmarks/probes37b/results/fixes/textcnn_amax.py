# Kim-style TextCNN sentence classifier (the pattern from many tutorials): conv over the token
# axis, then max-over-time pooling written as F.max_pool1d(h, h.size(2)). Sentences arrive
# unpadded, one length per batch.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TextCNN(nn.Module):
    def __init__(self, vocab=200, dim=16, nf=8, kernel_sizes=(2, 3, 4), ncls=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.convs = nn.ModuleList(nn.Conv1d(dim, nf, k) for k in kernel_sizes)
        self.fc = nn.Linear(nf * len(kernel_sizes), ncls)

    def forward(self, ids):
        x = self.emb(ids).transpose(1, 2)  # [B, dim, L]
        feats = []
        for conv in self.convs:
            h = F.relu(conv(x))
            feats.append(h.amax(2))  # max over time
        return self.fc(torch.cat(feats, 1))


model = TextCNN().eval()
cmodel = torch.compile(model)
lengths = [7, 11, 9, 15, 20, 13, 26, 8, 31, 18, 12, 24]
with torch.no_grad():
    for i, L in enumerate(lengths):
        ids = torch.randint(0, 200, (2, L))
        out = cmodel(ids)
        same = torch.allclose(out, model(ids), atol=1e-5)
        print(f"batch {i:2d} len {L:2d}: pred {out.argmax(1).tolist()} matches eager {same}")
