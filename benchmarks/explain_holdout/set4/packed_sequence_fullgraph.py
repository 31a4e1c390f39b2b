"""pytorch/pytorch#162375 ("`torch.compile` fails with `pack_padded_sequence` + `pad_packed_sequence`
(FakeTensor error)", https://github.com/pytorch/pytorch/issues/162375): a GRU over a packed
sequence, compiled with fullgraph=True; eager runs, the compile fails at the packing (smaller
sizes than the issue's)."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class M(nn.Module):
    def __init__(self, vocab_size=100, E=8, H=8):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, E)
        self.rnn = nn.GRU(E, H, batch_first=False)

    def forward(self, ids, lengths):
        x = self.emb(ids)
        packed = pack_padded_sequence(x, lengths.cpu(), enforce_sorted=False)
        packed_out, _ = self.rnn(packed)
        padded_out, _ = pad_packed_sequence(packed_out)
        return padded_out


m = M()
ids = torch.randint(0, 100, (10, 1), dtype=torch.long)
lens = torch.tensor([10], dtype=torch.int64)
_ = m(ids, lens)
out = torch.compile(m, fullgraph=True)(ids, lens)
print(out.shape)
