"""Check-in recommender: a compiled model that maps (lat, lon) to a grid cell
with a custom operator (numpy implementation registered through torch.library)
and embeds the cell id.  Batches stream from a few CSV shards; one shard has its
lat/lon columns swapped in a handful of rows.
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
RES = 32  # cells per 180 degrees of latitude


@torch.library.custom_op("geo::cell_id", mutates_args=())
def cell_id(lat: torch.Tensor, lon: torch.Tensor, res: int) -> torch.Tensor:
    la, lo = lat.numpy(), lon.numpy()
    bad = np.abs(la) > 90.0
    if bad.any():
        raise ValueError(f"latitude {float(la[bad][0]):.2f} outside [-90, 90]")
    row = np.clip(np.floor((la + 90.0) / 180.0 * res), 0, res - 1)
    col = np.clip(np.floor((lo + 180.0) / 360.0 * 2 * res), 0, 2 * res - 1)
    return torch.from_numpy((row * 2 * res + col).astype(np.int64))


@cell_id.register_fake
def _(lat, lon, res):
    return torch.empty(lat.shape, dtype=torch.int64, device=lat.device)


class CheckinModel(nn.Module):
    def __init__(self, n_venues=50, dim=16):
        super().__init__()
        self.cell_emb = nn.Embedding(2 * RES * RES, dim)
        self.time_proj = nn.Linear(2, dim)
        self.out = nn.Linear(dim, n_venues)

    def forward(self, lat, lon, hour):
        cells = torch.ops.geo.cell_id(lat, lon, RES)
        ang = hour * (2 * torch.pi / 24)
        t = self.time_proj(torch.stack([ang.sin(), ang.cos()], dim=-1))
        return self.out(torch.relu(self.cell_emb(cells) + t))


def load_shard(i, n=64):
    g = torch.Generator().manual_seed(100 + i)
    lat = torch.rand(n, generator=g) * 20 + 30      # 30..50 N
    lon = torch.rand(n, generator=g) * 40 - 120     # 120..80 W
    hour = torch.randint(0, 24, (n,), generator=g).float()
    venue = torch.randint(0, 50, (n,), generator=g)
    if i == 4:  # this export swapped the columns for a few rows
        lat[5:9], lon[5:9] = lon[5:9].clone(), lat[5:9].clone()
    return lat, lon, hour, venue


def main():
    model = CheckinModel()
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for shard in range(6):
        lat, lon, hour, venue = load_shard(shard)
        loss = nn.functional.cross_entropy(cmodel(lat, lon, hour), venue)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"shard {shard} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
