"""Slot-filling tagger with a linear-chain CRF: every utterance is padded to MAX_LEN, the
CRF forward algorithm masks the padding, and Viterbi decoding back-traces with gather."""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, TAGS, DIM, MAX_LEN = 120, 5, 16, 6


class SlotCRF(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.out = nn.Linear(DIM, TAGS)
        self.trans = nn.Parameter(torch.zeros(TAGS, TAGS))

    def emissions(self, tokens):
        return self.out(torch.tanh(self.emb(tokens)))

    def nll(self, tokens, tags, mask):
        em = self.emissions(tokens)
        alpha = em[:, 0]
        for t in range(1, MAX_LEN):
            nxt = torch.logsumexp(alpha[:, :, None] + self.trans, dim=1) + em[:, t]
            alpha = torch.where(mask[:, t, None], nxt, alpha)
        gold = em.gather(2, tags[..., None]).squeeze(2) * mask
        pair = self.trans[tags[:, :-1], tags[:, 1:]] * mask[:, 1:]
        return (torch.logsumexp(alpha, 1) - gold.sum(1) - pair.sum(1)).mean()

    def viterbi(self, tokens, mask):
        em = self.emissions(tokens)
        score, backptrs = em[:, 0], []
        for t in range(1, MAX_LEN):
            best, idx = (score[:, :, None] + self.trans).max(dim=1)
            backptrs.append(torch.where(mask[:, t, None], idx, torch.arange(TAGS)))
            score = torch.where(mask[:, t, None], best + em[:, t], score)
        tag = score.argmax(1, keepdim=True)
        path = [tag]
        for idx in reversed(backptrs):
            tag = idx.gather(1, tag)
            path.append(tag)
        return torch.cat(path[::-1], dim=1) * mask


def make_batch(n):
    lengths = torch.randint(2, MAX_LEN + 1, (n,))
    mask = torch.arange(MAX_LEN)[None] < lengths[:, None]
    tokens = torch.randint(1, VOCAB, (n, MAX_LEN)) * mask
    return tokens, (tokens % TAGS) * mask, mask


model = SlotCRF()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
train_nll, decode = torch.compile(model.nll), torch.compile(model.viterbi)
for step in range(8):
    tokens, tags, mask = make_batch(16)
    loss = train_nll(tokens, tags, mask)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} nll {loss.item():.4f}")
tokens, tags, mask = make_batch(32)
with torch.no_grad():
    pred = decode(tokens, mask)
print("tag accuracy", ((pred == tags) & mask).sum().item() / mask.sum().item())
