# Tabular feature pipeline: standardise numeric columns, one-hot the categorical column,
# then a linear scorer. Compiled with fullgraph=True so the whole pipeline is one graph.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TabularScorer(nn.Module):
    def __init__(self, n_num, n_cat_levels):
        super().__init__()
        self.register_buffer("mu", torch.zeros(n_num))
        self.register_buffer("sd", torch.ones(n_num))
        self.lin = nn.Linear(n_num + n_cat_levels, 1)

    def fit_scaler(self, num):
        self.mu.copy_(num.mean(0))
        self.sd.copy_(num.std(0).clamp(min=1e-6))

    def forward(self, num, cat):
        z = (num - self.mu) / self.sd
        cat_oh = F.one_hot(cat, num_classes=4).to(z.dtype)          # levels 0..3
        return self.lin(torch.cat([z, cat_oh], dim=1)).squeeze(1)


def main():
    n = 64
    num = torch.randn(n, 3) * torch.tensor([1.0, 10.0, 100.0]) + 5
    cat = torch.arange(n) % 4
    model = TabularScorer(3, 4)
    model.fit_scaler(num)
    scorer = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        scores = scorer(num, cat)
    print("scores", [round(s, 4) for s in scores[:5].tolist()])
    print("mean score", round(scores.mean().item(), 4))


if __name__ == "__main__":
    main()
