"""Failure (inductor_lowering): the program turns off Inductor's implicit fallbacks (probes45c
voxelmorph_warp3d_no_implicit_fallbacks), and 3-D grid_sample has neither a lowering nor a
decomposition, so lowering raises MissingOperatorWithoutDecomp. The cause is the program's
setting: leave implicit_fallbacks on (or keep that op eager)."""
import torch
import torch._inductor.config as inductor_config
import torch.nn.functional as F

inductor_config.implicit_fallbacks = False  # <- diagnosis


def warp(volume, flow):
    return F.grid_sample(volume, flow.tanh(), align_corners=True)


torch.manual_seed(0)
volume = torch.rand(1, 1, 4, 4, 4)
flow = torch.randn(1, 4, 4, 4, 3)
print(torch.compile(warp)(volume, flow).sum().item())
