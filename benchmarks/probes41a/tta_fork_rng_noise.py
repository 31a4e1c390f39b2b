"""Noise test-time augmentation for a small MLP classifier.

The TTA predictor draws its noise inside torch.random.fork_rng() so that the
global RNG stream (used by the data sampler) is left untouched by evaluation.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_CLASSES = 4


class Classifier(nn.Module):
    def __init__(self, d_in=20, d_hid=64, n_cls=N_CLASSES):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hid), nn.GELU(),
                                 nn.Linear(d_hid, d_hid), nn.GELU(),
                                 nn.Linear(d_hid, n_cls))

    def forward(self, x):
        return self.net(x)


@torch.compile
def tta_predict(model, x, sigma=0.05, n_views=4):
    probs = F.softmax(model(x), dim=-1)
    with torch.random.fork_rng(devices=[]):
        for _ in range(n_views - 1):
            noisy = x + sigma * torch.randn_like(x)
            probs = probs + F.softmax(model(noisy), dim=-1)
    return probs / n_views


CENTERS = torch.randn(N_CLASSES, 20) * 0.4


def make_data(n, d_in=20):
    centers = CENTERS
    y = torch.randint(0, N_CLASSES, (n,))
    x = centers[y] + torch.randn(n, d_in)
    return x, y


def main():
    x_tr, y_tr = make_data(512)
    x_te, y_te = make_data(256)
    model = Classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(3):
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = 0
            for j in range(0, len(x_te), 64):
                probs = tta_predict(model, x_te[j:j + 64])
                acc += (probs.argmax(-1) == y_te[j:j + 64]).sum().item()
        model.train()
        print(f"epoch {epoch} loss {loss.item():.4f} tta acc {acc / len(x_te):.3f}")


if __name__ == "__main__":
    main()
