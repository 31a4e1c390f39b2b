"""Few-shot episodic training with a classifier head re-initialised from class prototypes every
episode (the Proto-MAML / "prototype-initialised linear head" recipe: W = 2*c_k, b = -|c_k|^2).

The learner swaps in a fresh nn.Linear head inside its forward for each episode; the learner is
compiled. 5-way 3-shot episodes on synthetic clustered data.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ProtoHeadLearner(nn.Module):
    def __init__(self, d_in=32, d_feat=32, n_way=5):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, d_feat))
        self.n_way = n_way
        self.head = nn.Linear(d_feat, n_way)

    def forward(self, xs, ys, xq):
        fs = self.encoder(xs)
        fq = self.encoder(xq)
        onehot = F.one_hot(ys, self.n_way).to(fs.dtype)
        protos = (onehot.t() @ fs) / onehot.sum(0).unsqueeze(1)
        self.head = nn.Linear(fs.shape[1], self.n_way)
        with torch.no_grad():
            self.head.weight.copy_(2 * protos)
            self.head.bias.copy_(-(protos ** 2).sum(1))
        return self.head(fq)


def sample_episode(centers, n_way, k_shot, n_query, g):
    classes = torch.randperm(centers.shape[0], generator=g)[:n_way]
    ys = torch.arange(n_way).repeat_interleave(k_shot)
    yq = torch.arange(n_way).repeat_interleave(n_query)
    xs = centers[classes][ys] + 0.8 * torch.randn(len(ys), centers.shape[1], generator=g)
    xq = centers[classes][yq] + 0.8 * torch.randn(len(yq), centers.shape[1], generator=g)
    return xs, ys, xq, yq


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    centers = torch.randn(40, 32, generator=g)
    learner = ProtoHeadLearner()
    clearner = torch.compile(learner)
    opt = torch.optim.Adam(learner.encoder.parameters(), lr=1e-3)
    accs = []
    for episode in range(40):
        xs, ys, xq, yq = sample_episode(centers, 5, 3, 6, g)
        logits = clearner(xs, ys, xq)
        loss = F.cross_entropy(logits, yq)
        opt.zero_grad()
        loss.backward()
        opt.step()
        accs.append((logits.argmax(-1) == yq).float().mean().item())
        if episode % 10 == 9:
            print(f"episode {episode + 1:2d} loss {loss.item():.4f} acc(last10) {sum(accs[-10:]) / 10:.3f}")


if __name__ == "__main__":
    main()
