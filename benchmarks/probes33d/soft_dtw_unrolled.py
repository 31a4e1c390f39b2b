"""Align a learned embedding of one gesture recording to a template with a soft-DTW loss
(Cuturi & Blondel 2017), the recursion written directly over the cost matrix."""
import torch
import torch.nn as nn

torch.manual_seed(0)
FRAMES, FEATS, GAMMA = 8, 3, 0.1


def soft_dtw(x, y, gamma=GAMMA):
    cost = torch.cdist(x, y) ** 2
    n, m = cost.shape
    inf = torch.tensor(float("inf"))
    R = [[inf] * (m + 1) for _ in range(n + 1)]
    R[0][0] = torch.tensor(0.0)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = torch.stack([R[i - 1][j - 1], R[i - 1][j], R[i][j - 1]])
            R[i][j] = cost[i - 1, j - 1] - gamma * torch.logsumexp(-prev / gamma, dim=0)
    return R[n][m]


encoder = nn.Sequential(nn.Linear(FEATS, 16), nn.Tanh(), nn.Linear(16, FEATS))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-2)
template = torch.cumsum(torch.randn(FRAMES, FEATS) * 0.3, dim=0)
recording = template[torch.tensor([0, 0, 1, 2, 3, 5, 6, 7])] + 0.1 * torch.randn(FRAMES, FEATS)
loss_fn = torch.compile(soft_dtw)

for step in range(10):
    loss = loss_fn(encoder(recording), template)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step} soft-dtw {loss.item():.4f}")
