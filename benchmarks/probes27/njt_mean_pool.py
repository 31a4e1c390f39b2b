"""Variable-length sequences as a jagged nested tensor (torch.nested, layout=torch.jagged),
a linear projection and a per-sequence mean pool, compiled. The pooling uses the nested
tensor's offsets to loop over sequences in Python, the way one would write it for a list."""
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(8, 4)


@torch.compile
def encode(nt):
    h = proj(nt).relu()  # works on the jagged tensor directly
    lengths = nt.offsets().diff()
    pooled = [h.values()[s:s + n].mean(0) for s, n in zip(nt.offsets()[:-1].tolist(), lengths.tolist())]
    return torch.stack(pooled)


for batch in range(3):
    seqs = [torch.randn(int(n), 8) for n in torch.randint(2, 9, (4,))]
    nt = torch.nested.nested_tensor(seqs, layout=torch.jagged)
    with torch.no_grad():
        out = encode(nt)
        ref = torch.stack([proj(s).relu().mean(0) for s in seqs])
    print(batch, tuple(out.shape), "max diff %.2e" % (out - ref).abs().max().item())
