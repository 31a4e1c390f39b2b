"""VoxelMorph-style 3-D registration: a small UNet predicts a displacement
field and a SpatialTransformer warps the moving volume with grid_sample,
as in voxelmorph/torch/layers.py (SpatialTransformer).

The team turned off Inductor's implicit fallbacks so that every op is
code-generated ("no silent eager kernels"), a knob in
torch/_inductor/config.py (implicit_fallbacks).  aten.grid_sampler_3d has
neither an Inductor lowering nor a decomposition (the 2-D one has a
decomposition), so graph lowering raises MissingOperatorWithoutDecomp
(torch/_inductor/graph.py, exc.py).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._inductor.config as inductor_config

inductor_config.implicit_fallbacks = False  # every op must be lowered


class SpatialTransformer(nn.Module):
    def __init__(self, size):
        super().__init__()
        vecs = [torch.linspace(-1, 1, s) for s in size]
        grid = torch.stack(torch.meshgrid(*vecs, indexing="ij")[::-1], dim=-1)
        self.register_buffer("grid", grid[None], persistent=False)

    def forward(self, moving, flow):
        new_locs = self.grid + flow.permute(0, 2, 3, 4, 1)
        return F.grid_sample(moving, new_locs, align_corners=True, mode="bilinear")


class RegNet(nn.Module):
    def __init__(self, size=(12, 12, 12), ch=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv3d(2, ch, 3, padding=1), nn.LeakyReLU(0.2),
                                 nn.Conv3d(ch, ch, 3, padding=1), nn.LeakyReLU(0.2))
        self.flow = nn.Conv3d(ch, 3, 3, padding=1)
        nn.init.normal_(self.flow.weight, 0, 1e-3)
        nn.init.zeros_(self.flow.bias)
        self.warp = SpatialTransformer(size)

    def forward(self, moving, fixed):
        flow = self.flow(self.enc(torch.cat([moving, fixed], dim=1)))
        return self.warp(moving, flow), flow


def main():
    torch.manual_seed(0)
    net = RegNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    step = torch.compile(net)
    g = torch.Generator().manual_seed(9)
    fixed = torch.rand(1, 1, 12, 12, 12, generator=g)
    moving = torch.roll(fixed, shifts=1, dims=2)
    for it in range(3):
        warped, flow = step(moving, fixed)
        loss = F.mse_loss(warped, fixed) + 0.01 * flow.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it}: loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
