"""Crammer-Singer style multi-class SVM on keyword counts.

The linear scorer is warm-started from a hand-written keyword -> class
rule table, so the initial scores are small integers; it is then fine-tuned
with the multi-class hinge loss (F.multi_margin_loss, margin=1).
The loss is computed in a compiled function; the rest is plain PyTorch.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, CLASSES = 12, 4

# keyword k votes for class RULES[k]
RULES = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])


def make_docs(n):
    counts = torch.randint(0, 3, (n, VOCAB)).float()
    labels = (counts.view(n, CLASSES, 3).sum(-1) + 0.1 * torch.randn(n, CLASSES)).argmax(1)
    return counts, labels


scorer = nn.Linear(VOCAB, CLASSES, bias=False)
with torch.no_grad():
    scorer.weight.copy_(F.one_hot(RULES, CLASSES).T.float())   # integer rule weights
opt = torch.optim.SGD(scorer.parameters(), lr=0.05)


@torch.compile
def hinge_loss(counts, labels):
    return F.multi_margin_loss(scorer(counts), labels, margin=1.0)


docs, labels = make_docs(64)
for step in range(5):
    opt.zero_grad()
    loss = hinge_loss(docs, labels)
    loss.backward()
    gnorm = scorer.weight.grad.norm().item()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad_norm {gnorm:.4f}")

with torch.no_grad():
    acc = (scorer(docs).argmax(1) == labels).float().mean()
print(f"train acc {acc:.3f}")
