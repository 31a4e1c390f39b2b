"""Export a retrieval re-ranker whose number of kept candidates depends on the
scores: `k = int((probs > threshold).sum())` then `torch.topk(probs, k)`.

Non-strict torch.export (the default) turns `int(tensor)` into a data-dependent
guard on an unbacked symbol and fails at that line (source: the export
"data-dependent" errors of pytorch/pytorch#146315 and the
GuardOnDataDependentSymNode reports on the export tracker, 2025).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class ReRanker(nn.Module):
    def __init__(self, dim=16, threshold=0.6):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        self.threshold = threshold

    def forward(self, q, cands):
        scores = cands @ self.query(q)
        probs = torch.sigmoid(scores)
        k = int((probs > self.threshold).sum())
        top, idx = torch.topk(probs, k)
        return (top * cands[idx].sum(-1)).sum()


def main():
    model = ReRanker().eval()
    q = torch.randn(16)
    cands = torch.randn(64, 16)
    with torch.no_grad():
        print(f"eager score={model(q, cands).item():.4f}")
    ep = torch.export.export(model, (q, cands))
    served = ep.module()
    for step in range(3):
        cands = torch.randn(64, 16)
        with torch.no_grad():
            print(f"step {step} score={served(q, cands).item():.4f}")


if __name__ == "__main__":
    main()
