# Spatial transformer: a small localisation net predicts an affine warp and the
# sampler runs with cuDNN disabled for deterministic grid_sample (a common idiom
# copied from detection/segmentation code bases).
import torch
import torch.nn as nn
import torch.nn.functional as F


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 5), nn.MaxPool2d(2), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(8 * 10 * 10, 6))
        nn.init.zeros_(self.loc[-1].weight)
        with torch.no_grad():
            self.loc[-1].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1.0, 0]))
        self.cls = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.shape, align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False, padding_mode="border")
        return self.cls(x)


torch.manual_seed(0)
model = STN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
cmodel = torch.compile(model)
x = torch.randn(8, 1, 24, 24)
y = torch.randint(0, 10, (8,))
for step in range(4):
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
