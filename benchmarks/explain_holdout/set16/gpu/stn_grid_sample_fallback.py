"""pytorch/torchdynamo#327 ("TorchInductor missing ops tracker": "The following ops are using
ir.FallbackKernel ... aten.grid_sampler_2d") and pytorch/pytorch#136953 ("[inductor]
grid_sampler_2d is slower than eager": the forward "gets decomposed"), while the backward stayed
an ATen fallback (Inductor's lowering.py: make_fallback(aten.grid_sampler_2d_backward)): a spatial
transformer network (a localisation net predicts an affine transform, F.affine_grid builds the
sampling grid, F.grid_sample warps the image) trained with torch.compile on CUDA. The forward's
sampling becomes generated Triton code; its backward runs as an eager ATen kernel between the
generated ones, and Inductor says so in its perf hint "Using FallbackKernel:
aten.grid_sampler_2d_backward.default" (TORCH_LOGS=perf_hints). One graph, no graph break; the
program exits 0.

Why it should reproduce on torch 2.11: by design. make_fallback(aten.grid_sampler_2d_backward)
has been in lowering.py since Inductor's first release and is in the 2.13 wheel, with no
decomposition for the op (make_fallback refuses ops that have one). TF32 is enabled so that the
TF32 hint does not compete; the localisation net is linear layers only, so that the backward of
a convolution or a pooling layer (fallbacks too) does not compete. A CPU run on torch 2.13 (cuda
replaced by cpu) logs that hint, and no other fallback, for the backward graph only, and no
graph break."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_float32_matmul_precision("high")


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 32), nn.Tanh(), nn.Linear(32, 6))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))

    def forward(self, img):
        theta = self.loc(img).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(img.shape), align_corners=False)
        warped = F.grid_sample(img, grid, align_corners=False)
        return self.head(warped)


torch.manual_seed(0)
model = STN().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
step = torch.compile(model)
for _ in range(4):
    img = torch.randn(32, 1, 28, 28, device="cuda")
    label = torch.randint(0, 10, (32,), device="cuda")
    loss = F.cross_entropy(step(img), label)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(loss.item())
