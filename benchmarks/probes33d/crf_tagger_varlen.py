"""Tiny NER tagger: embeddings + conv encoder + linear-chain CRF loss, batches padded to the
longest sentence of the batch."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, TAGS, DIM = 200, 5, 16


class ConvCRFTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.conv = nn.Conv1d(DIM, DIM, 3, padding=1)
        self.out = nn.Linear(DIM, TAGS)
        self.trans = nn.Parameter(torch.randn(TAGS, TAGS) * 0.1)

    def nll(self, tokens, tags, mask):
        h = torch.relu(self.conv(self.emb(tokens).transpose(1, 2))).transpose(1, 2)
        emissions = self.out(h)                      # (B, T, TAGS)
        # log partition, forward algorithm
        alpha = emissions[:, 0]
        for t in range(1, emissions.size(1)):
            nxt = torch.logsumexp(alpha[:, :, None] + self.trans[None], dim=1) + emissions[:, t]
            alpha = torch.where(mask[:, t, None], nxt, alpha)
        log_z = torch.logsumexp(alpha, dim=1)
        # score of the gold path
        gold = emissions.gather(2, tags[..., None]).squeeze(2)
        pair = self.trans[tags[:, :-1], tags[:, 1:]]
        score = (gold * mask).sum(1) + (pair * mask[:, 1:]).sum(1)
        return (log_z - score).mean()


model = ConvCRFTagger()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = torch.compile(model.nll)

# length-bucketed batches: sentences sorted by length, 4 per batch
sentence_lengths = torch.randint(3, 10, (24,)).sort().values
for step, lengths in enumerate(sentence_lengths.split(4)):
    longest = int(lengths.max())
    tokens = torch.randint(1, VOCAB, (4, longest))
    tags = torch.randint(0, TAGS, (4, longest))
    mask = torch.arange(longest)[None] < lengths[:, None]
    tokens = tokens * mask
    loss = loss_fn(tokens, tags, mask)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step:2d} len {longest:2d} nll {loss.item():.4f}")
