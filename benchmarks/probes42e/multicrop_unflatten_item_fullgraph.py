"""Multi-crop (DINO-style) embedding head over views of the same images.

Each sample yields a list of crops; the collate function flattens all views
into one (n_crops * B, C, H, W) batch and, via default_collate, turns the
per-sample crop count into a tensor. The compiled head averages the
embeddings of the crops of each image. The user turned on
capture_scalar_outputs so that .item() does not break the graph.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import default_collate

torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)


class CropEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, dim, 3, stride=2, padding=1), nn.ReLU())
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(self.conv(x).mean((2, 3)))


encoder = CropEncoder().eval()


@torch.compile(fullgraph=True)
def image_embeddings(views, n_crops):
    feats = F.normalize(encoder(views), dim=-1)      # (n_crops * B, D), crop-major
    n = n_crops[0].item()                            # same count for every sample
    per_crop = feats.unflatten(0, (n, -1))           # (n_crops, B, D)
    return F.normalize(per_crop.mean(0), dim=-1)


def make_sample(img, n_crops=4, size=24):
    crops = []
    for _ in range(n_crops):
        i, j = torch.randint(0, img.shape[1] - size + 1, (2,)).tolist()
        crops.append(img[:, i:i + size, j:j + size])
    return {"crops": crops, "n_crops": n_crops}


def collate(samples):
    batch = default_collate(samples)                 # crops: list of (B, 3, S, S); n_crops: tensor(B)
    return torch.cat(batch["crops"]), batch["n_crops"]


def main():
    images = torch.rand(12, 3, 32, 32)
    with torch.no_grad():
        for step in range(3):
            samples = [make_sample(images[k]) for k in range(step * 4, step * 4 + 4)]
            views, n_crops = collate(samples)
            emb = image_embeddings(views, n_crops)
            sim = emb @ emb.T
            print(f"step {step} views {tuple(views.shape)} mean off-diag sim "
                  f"{(sim.sum() - sim.diag().sum()).item() / 12:.4f}")


if __name__ == "__main__":
    main()
