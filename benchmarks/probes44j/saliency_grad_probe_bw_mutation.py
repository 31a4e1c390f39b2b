"""Saliency for a small text classifier: a custom autograd.Function records the
gradient that reaches the token embeddings into a probe tensor during backward.

Source: pytorch/pytorch#172956 ("Mutation during backward on tensor saved for
backward can create invalid graph", 2026-01) wrapped in user code.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class RecordGrad(torch.autograd.Function):
    """Identity in forward; in backward, accumulates the incoming gradient into `probe`."""

    @staticmethod
    def forward(ctx, x, probe):
        ctx.save_for_backward(probe)
        return x * 1.0

    @staticmethod
    def backward(ctx, grad_out):
        (probe,) = ctx.saved_tensors
        probe.add_(grad_out)
        return grad_out.clone(), None


class TextClassifier(nn.Module):
    def __init__(self, vocab=500, dim=32, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.enc = nn.Sequential(nn.Linear(dim, 64), nn.GELU(), nn.Linear(64, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        e = self.emb(ids)
        probe = torch.zeros_like(e)
        e = RecordGrad.apply(e, probe)
        h = self.enc(e).mean(dim=1)
        return self.head(h), probe


def saliency(model, ids, labels):
    model.zero_grad()
    logits, probe = model(ids)
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    # per-token saliency = L2 norm of the gradient that reached the embedding
    return loss.detach(), probe.norm(dim=-1)


def main():
    model = TextClassifier()
    compiled = torch.compile(model)
    for step in range(3):
        ids = torch.randint(0, 500, (8, 16))
        labels = torch.randint(0, 4, (8,))
        loss, sal = saliency(compiled, ids, labels)
        top = sal[0].topk(3).indices.tolist()
        print(f"batch {step}: loss={loss.item():.4f} top tokens of sample 0 at {top}")


if __name__ == "__main__":
    main()
