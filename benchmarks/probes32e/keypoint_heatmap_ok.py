import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_JOINTS = 6


class PoseHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, NUM_JOINTS, 1),
        )

    def forward(self, images):
        return self.net(images)


def decode_heatmaps(heatmaps, stride=4):
    n, k, h, w = heatmaps.shape
    flat = heatmaps.flatten(2)
    conf, idx = flat.max(dim=-1)
    ys = torch.div(idx, w, rounding_mode="floor")
    xs = idx % w
    coords = torch.stack([xs, ys], dim=-1).float() * stride + stride / 2
    return coords, conf.sigmoid()


def train_and_decode():
    model = PoseHead()
    compiled = torch.compile(model)
    decode = torch.compile(decode_heatmaps)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    images = torch.rand(8, 3, 64, 64)
    target = torch.zeros(8, NUM_JOINTS, 16, 16)
    target[:, :, 5, 9] = 1.0
    for step in range(6):
        heatmaps = compiled(images)
        loss = F.mse_loss(heatmaps, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        coords, conf = decode(heatmaps.detach())
        print(f"step {step}: loss {loss.item():.5f}, joint 0 of image 0 at "
              f"{coords[0, 0].tolist()} conf {conf[0, 0]:.3f}")


train_and_decode()
