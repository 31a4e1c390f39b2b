"""Text-classification server with length bucketing, written right: the warm-up runs
under the same torch.inference_mode() that serving uses, so the fail_on_recompile
stance set after warm-up never fires."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, N_LABELS = 500, 32, 4
BUCKETS = (16, 32)
BATCH = 4


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.ff = nn.Sequential(nn.Linear(DIM, DIM), nn.GELU(), nn.Linear(DIM, N_LABELS))

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).to(torch.float32)
        pooled = (self.emb(ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.ff(pooled).log_softmax(-1)


def pad_to_bucket(seqs):
    longest = max(len(s) for s in seqs)
    width = next(b for b in BUCKETS if b >= longest)
    out = torch.zeros(len(seqs), width, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s)
    return out


model = BagClassifier().eval()
cmodel = torch.compile(model)

# start-up: warm every bucket once, in the same grad mode as serving
with torch.inference_mode():
    for width in BUCKETS:
        dummy = torch.randint(1, VOCAB, (BATCH, width))
        torch._dynamo.mark_dynamic(dummy, 1)  # one graph for all bucket widths
        cmodel(dummy)
print("warm-up done for buckets", BUCKETS)
torch.compiler.set_stance("fail_on_recompile")

g = torch.Generator().manual_seed(3)
incoming = [[torch.randint(1, VOCAB, (int(torch.randint(5, 30, (1,), generator=g)),),
                           generator=g).tolist() for _ in range(BATCH)] for _ in range(5)]

with torch.inference_mode():
    for step, seqs in enumerate(incoming):
        ids = pad_to_bucket(seqs)
        labels = cmodel(ids).argmax(-1).tolist()
        print(f"batch {step} (width {ids.shape[1]}): labels {labels}")
