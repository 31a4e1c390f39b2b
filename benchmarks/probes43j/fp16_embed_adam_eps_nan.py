"""Pure-fp16 training of a bag-of-words classifier with a hand-written Adam step.

The optimizer step is compiled with torch.compile; parameters and Adam state are
kept in float16 to halve memory (no fp32 master copy).  Only the first half of
the vocabulary appears in the data, so many embedding rows get exact-zero grads.
Source pattern: "Adam half precision NaNs" (discuss.pytorch.org/t/1765,
afiaka87/glide-finetune#5, optax#1754): eps=1e-8 underflows to 0 in float16.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, DIM, CLASSES = 512, 32, 4
LOSS_SCALE = 1024.0           # static fp16 loss scale


class BowClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, ids):
        return self.head(self.emb(ids).mean(1))


@torch.compile
def adam_step(params, grads, exp_avgs, exp_avg_sqs, step, lr: float = 1e-3,
              b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8):
    bc1 = 1 - b1 ** step
    bc2 = 1 - b2 ** step
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        m.mul_(b1).add_(g, alpha=1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        denom = (v / bc2).sqrt() + eps
        p.sub_(lr * (m / bc1) / denom)


def main():
    model = BowClassifier().half()
    params = [p for p in model.parameters()]
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    step = torch.zeros((), dtype=torch.float32)
    loss_fn = nn.CrossEntropyLoss()
    for it in range(20):
        ids = torch.randint(0, VOCAB // 2, (16, 12))   # rows >= 256 never used
        labels = ids[:, 0] % CLASSES
        logits = model(ids).float()
        loss = loss_fn(logits, labels)
        for p in params:
            p.grad = None
        (loss * LOSS_SCALE).backward()   # Adam is scale-invariant: keep grads scaled
        step += 1
        with torch.no_grad():
            adam_step(params, [p.grad for p in params], exp_avgs, exp_avg_sqs, step)
        if it % 5 == 4:
            print(f"iter {it + 1:2d} loss {loss.item():.4f}")
    w = model.emb.weight.float()
    print("nan embedding rows:", int(w.isnan().any(1).sum()))
    print("unused-row checksum:", round(w[VOCAB // 2:].sum().item(), 3))


if __name__ == "__main__":
    main()
