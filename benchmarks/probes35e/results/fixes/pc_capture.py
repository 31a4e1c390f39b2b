# A tiny PointNet-style classifier: points outside the sensor range are dropped with a
# boolean mask before the shared MLP and max-pool (a common LiDAR preprocessing step).
import torch
import torch.nn as nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)


class PointNetTiny(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 64), nn.ReLU())
        self.head = nn.Linear(64, n_cls)

    def forward(self, pts, max_range: float = 2.0):
        dist = pts.norm(dim=-1)
        keep = (dist < max_range) & (pts[:, 2] > -1.0)
        pts = pts[keep]
        feat = self.mlp(pts)
        return self.head(feat.max(dim=0).values)


model = PointNetTiny().eval()
cmodel = torch.compile(model)

with torch.no_grad():
    for i in range(6):
        cloud = torch.randn(256, 3) * 1.5
        logits = cmodel(cloud)
        print(f"cloud {i}: class {logits.argmax().item()} logits {logits.sum().item():.4f}")
