# Hand-written gradient boosting with depth-1 trees (stumps) on tensors: candidate split
# thresholds are the distinct values of a pre-binned feature.
import torch

torch.manual_seed(0)


def fit_stump(xcol, residual):
    thr = torch.unique(xcol)
    left = xcol[:, None] <= thr[None, :]
    n_left = left.sum(0).clamp_min(1)
    n_right = (~left).sum(0).clamp_min(1)
    s_left = (residual[:, None] * left).sum(0)
    s_right = residual.sum() - s_left
    gain = s_left ** 2 / n_left + s_right ** 2 / n_right
    best = gain.argmax().view(1)
    t = thr.index_select(0, best)
    lv = s_left.index_select(0, best) / n_left.index_select(0, best)
    rv = s_right.index_select(0, best) / n_right.index_select(0, best)
    return t, lv, rv, torch.where(xcol <= t, lv, rv)


cfit = torch.compile(fit_stump, fullgraph=True)  # one graph per stump fit
x = torch.randint(0, 8, (64,)).float()  # feature already bucketised into 8 bins
y = torch.sin(x) + 0.1 * torch.randn(64)
pred = torch.full_like(y, y.mean().item())
for rnd in range(3):
    t, lv, rv, update = cfit(x, y - pred)
    pred = pred + 0.5 * update
    mse = (y - pred).pow(2).mean().item()
    ref = fit_stump(x, y - pred + 0.5 * update)
    same = all(torch.allclose(a, b) for a, b in zip((t, lv, rv, update), ref))
    print(rnd, t.item(), round(lv.item(), 4), round(rv.item(), 4), round(mse, 5), same)
