"""An fp8 (e4m3) linear layer for inference on an H100/H200, with dynamic per-tensor scaling.

The weight is quantised once; each call scales the activation by its current amax so that it
fits e4m3's range (448) and runs torch._scaled_mm with bf16 output.
"""
import torch

torch.manual_seed(0)
device = "cuda"
E4M3_MAX = torch.finfo(torch.float8_e4m3fn).max


class Fp8Linear(torch.nn.Module):
    def __init__(self, weight):
        super().__init__()
        w_scale = weight.abs().max().float() / E4M3_MAX
        self.register_buffer("w_fp8", (weight / w_scale).to(torch.float8_e4m3fn))
        self.register_buffer("w_scale", w_scale.reshape(()))

    def forward(self, x):
        amax = x.abs().max().item()
        x_scale = torch.tensor(max(amax, 1e-12) / E4M3_MAX, device=x.device)
        x_fp8 = (x / x_scale).to(torch.float8_e4m3fn)
        return torch._scaled_mm(x_fp8, self.w_fp8.t(), scale_a=x_scale, scale_b=self.w_scale,
                                out_dtype=torch.bfloat16)


weight = torch.randn(2048, 1024, device=device)
layer = torch.compile(Fp8Linear(weight))
for i in range(6):
    x = torch.randn(512, 1024, device=device) * (i + 1)
    out = layer(x)
    ref = x @ weight.t()
    err = (out.float() - ref).abs().max().item() / ref.abs().max().item()
    print("call", i, "rel err", round(err, 4))
