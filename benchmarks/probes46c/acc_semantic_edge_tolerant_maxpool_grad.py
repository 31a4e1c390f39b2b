"""Multi-class semantic edge detection (CASENet-style, K=4 edge classes) with a
localisation-tolerant BCE: at ground-truth edge pixels the logit is replaced by
its 3x3 neighbourhood max, so a prediction one pixel off the annotated edge is
not penalised.  The whole loss computation is compiled.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
K = 4


class EdgeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.side = nn.Conv2d(16, K, 1)

    def forward(self, img):
        return self.side(self.enc(img))


def tolerant_bce(logits, edges):
    relaxed = torch.where(edges > 0.5, F.max_pool2d(logits, 3, stride=1, padding=1), logits)
    return F.binary_cross_entropy_with_logits(relaxed, edges, pos_weight=torch.tensor(9.0))


def make_batch(g, n=4, size=32):
    img = torch.rand(n, 3, size, size, generator=g)
    edges = (torch.rand(n, K, size, size, generator=g) < 0.1).float()
    return img, edges


@torch.compile
def loss_fn(model, img, edges):
    return tolerant_bce(model(img), edges)


def main():
    model = EdgeNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    g = torch.Generator().manual_seed(1)
    img, edges = make_batch(g)
    for step in range(6):
        opt.zero_grad()
        loss = loss_fn(model, img, edges)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        opt.step()
        print(f"step {step} loss {loss.item():.5f} grad-norm {gnorm.item():.5f}")


if __name__ == "__main__":
    main()
