"""Accuracy that is not the compiler's: upsampling a 32x32 map to 64x64 makes a rank-deficient
matrix, and its inverse is garbage in eager and compiled alike (both far from float64).
After pytorch/pytorch#150165 ("Inconsistency inference results using eager and inductor":
interpolate then torch.inverse; "compile being more accurate than eager")."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        x = torch.nn.functional.interpolate(x, size=(64, 64), mode="bilinear",
                                            align_corners=True)
        return torch.inverse(x)  # <- diagnosis


torch.manual_seed(0)
with torch.no_grad():
    out = torch.compile(Model())(torch.randn(1, 3, 32, 32))
print(out.abs().max())
