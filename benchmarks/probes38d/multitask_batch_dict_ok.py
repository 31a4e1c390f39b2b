# Multi-task tagger: a collate function turns ragged token sequences into a dict batch
# (padded ids, mask, lengths); the compiled model returns a NamedTuple with a dict of
# per-task outputs and an optional loss. Checked against eager each step.
from typing import Dict, NamedTuple, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
VOCAB, D, MAX_LEN = 40, 16, 7


class TaggerOutput(NamedTuple):
    logits: Dict[str, torch.Tensor]
    loss: Optional[torch.Tensor]


def collate(seqs):
    ids = pad_sequence(seqs, batch_first=True, padding_value=0)
    ids = F.pad(ids, (0, MAX_LEN - ids.shape[1]))  # fixed width
    lengths = torch.tensor([len(s) for s in seqs])
    return {"ids": ids, "mask": torch.arange(MAX_LEN)[None] < lengths[:, None]}


class Tagger(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=0)
        self.heads = nn.ModuleDict({t: nn.Linear(D, n) for t, n in tasks.items()})

    def forward(self, batch, labels: Optional[Dict[str, torch.Tensor]] = None):
        h = torch.tanh(self.emb(batch["ids"]))
        m = batch["mask"].unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1)
        logits = {t: head(pooled) for t, head in self.heads.items()}
        loss = None
        if labels is not None:
            loss = sum(F.cross_entropy(logits[t], labels[t]) for t in logits)
        return TaggerOutput(logits, loss)


model = Tagger({"pos": 5, "ner": 3})
cmodel = torch.compile(model)
for step in range(3):
    lens = torch.randint(2, MAX_LEN + 1, (4,)).tolist()
    batch = collate([torch.randint(1, VOCAB, (L,)) for L in lens])
    labels = {"pos": torch.randint(0, 5, (4,)), "ner": torch.randint(0, 3, (4,))}
    oc, oe = cmodel(batch, labels), model(batch, labels)
    diff = max(float((oc.logits[t] - oe.logits[t]).detach().abs().max()) for t in oc.logits)
    print(f"step {step} lens {lens} loss {oc.loss.item():.4f} eager {oe.loss.item():.4f} "
          f"max|c-e| {diff:.1e}")
print("ner pred", oc.logits["ner"].argmax(-1).tolist(), "pos pred", oc.logits["pos"].argmax(-1).tolist())
