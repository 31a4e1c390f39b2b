# Point-cloud voxelisation on integer grid coordinates: each point's voxel id is
# computed, the integer coordinates are summed per voxel with index_add, and each
# voxel's centroid is the integer mean (sum // count). Empty voxels divide by a count clamped to 1.
import torch
import torch.nn as nn

torch.manual_seed(0)
GRID = 8  # 8 x 8 x 8 voxels


class VoxelCentroids(nn.Module):
    def __init__(self, grid, cell):
        super().__init__()
        self.grid = grid
        self.cell = cell

    def forward(self, pts):  # pts: int64 [N, 3], in grid units * cell
        v = pts // self.cell
        vid = (v[:, 0] * self.grid + v[:, 1]) * self.grid + v[:, 2]
        nvox = self.grid ** 3
        sums = torch.zeros(nvox, 3, dtype=torch.int64).index_add_(0, vid, pts)
        counts = torch.zeros(nvox, dtype=torch.int64).index_add_(0, vid, torch.ones_like(vid))
        centroid = sums // counts.clamp(min=1)[:, None]
        occupied = counts > 0
        return centroid, occupied


def load_scan(n):
    # a lidar-like scan: points concentrated near the ground plane (z small)
    xy = torch.randint(0, GRID * 16, (n, 2))
    z = torch.randint(0, 16 * 2, (n, 1))
    return torch.cat([xy, z], dim=1)


model = torch.compile(VoxelCentroids(GRID, 16))
for step in range(3):
    pts = load_scan(4096)
    centroid, occupied = model(pts)
    print("scan %d: %d occupied voxels, mean centroid %s" % (
        step, int(occupied.sum()), centroid[occupied].float().mean(0).tolist()))
