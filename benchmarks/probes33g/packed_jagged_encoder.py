import torch
import torch.nn as nn

torch.manual_seed(0)


class UtteranceEncoder(nn.Module):
    def __init__(self, feat=20, dim=32):
        super().__init__()
        self.inp = nn.Linear(feat, dim)
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, 8)

    def forward(self, packed, lengths):
        utts = torch.nested.nested_tensor(list(packed.split(lengths)), layout=torch.jagged)
        h = self.norm(torch.relu(self.inp(utts)))
        padded = torch.nested.to_padded_tensor(h, 0.0)
        return self.out(padded.sum(1))


def collate(n_utts=4):
    lengths = torch.randint(10, 60, (n_utts,)).tolist()
    packed = torch.randn(sum(lengths), 20)
    return packed, lengths


model = UtteranceEncoder().eval()
encode = torch.compile(model)
with torch.no_grad():
    for batch in range(10):
        packed, lengths = collate()
        emb = encode(packed, lengths)
        print(f"batch {batch} lengths {lengths} emb norm {emb.norm():.3f}")
