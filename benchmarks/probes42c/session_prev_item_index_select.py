"""Next-item scoring for a session-based recommender (transition model).

Each event is scored against the item that preceded it in the same session:
score = <E[prev_item] @ W, E[item]>.  The first event of every session has no
predecessor; the event log marks that with prev_item = -1.  Scoring of each day's
event log is compiled.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
N_ITEMS, DIM = 500, 32


class TransitionScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_emb = nn.Embedding(N_ITEMS, DIM)
        self.trans = nn.Linear(DIM, DIM, bias=False)

    def forward(self, prev_items, items):
        prev = self.item_emb.weight.index_select(0, prev_items)     # predecessor embeddings
        cur = self.item_emb.weight.index_select(0, items)
        return (self.trans(prev) * cur).sum(-1)


def day_log(n_sessions, seed, length=4):
    # sessions are truncated to their last `length` events upstream
    g = torch.Generator().manual_seed(seed)
    prev, cur = [], []
    for _ in range(n_sessions):
        sess = torch.randint(0, N_ITEMS, (length,), generator=g)
        prev.append(torch.cat([torch.tensor([-1]), sess[:-1]]))     # -1: session start
        cur.append(sess)
    return torch.cat(prev), torch.cat(cur)


model = TransitionScorer().eval()
score_log = torch.compile(model)

with torch.no_grad():
    for day in range(3):
        prev_items, items = day_log(40, seed=day)
        scores = score_log(prev_items, items)
        starts = prev_items < 0
        print("day %d: %d events, mean score %.4f, mean score at session start %.4f"
              % (day, items.numel(), scores.mean().item(), scores[starts].mean().item()))
