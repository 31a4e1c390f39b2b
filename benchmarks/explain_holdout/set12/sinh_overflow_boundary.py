"""pytorch/pytorch#183763 ("torch.compile overflows torch.sinh near float32 boundary while eager
returns finite values", https://github.com/pytorch/pytorch/issues/183763): for |x| between about
88.7 and 89.4 sinh(x) is still a finite float32 (up to ~3.4e38), but Inductor's sinh computes
through exp(x), which overflows first, so the compiled result is +/-inf where eager's is
finite. Here the spatial part of a hyperboloid (Lorentz) embedding's exponential map at the
origin, whose large-norm rows reach that range; the program prints the result and does not compare."""
import torch


def expmap_spatial(direction, radius):
    scale = torch.sinh(radius)
    return scale, scale.unsqueeze(-1) * direction


torch.manual_seed(0)
directions = torch.nn.functional.normalize(torch.randn(5, 3), dim=-1)
radii = torch.tensor([2.0, 88.5, 89.0, 89.2, 89.4])
scales, points = torch.compile(expmap_spatial)(directions, radii)
print(scales)
