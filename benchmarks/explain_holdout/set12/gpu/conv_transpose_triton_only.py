"""pytorch/pytorch#186066 ("[Inductor] ConvTranspose2d crashes with NoValidChoicesError when
max_autotune_conv_backends=TRITON", https://github.com/pytorch/pytorch/issues/186066): with
max-autotune restricted to Triton's convolution templates, a transposed convolution has no
candidate at all (the templates take only plain, undilated convolutions), and the forward
convolution lowering has no ATen safety net, so the compile fails with NoValidChoicesError ("No
choices to select ... please consider adding ATEN into max_autotune_conv_backends") raised from
the lowering of the ConvTranspose2d call. The issue's repro, smaller.

Why it should still reproduce on torch 2.11: the lowering's template condition (`not transposed`,
dilation 1, no output padding) and the empty-choices error are long-standing; even the torch 2.13
wheel's kernel/conv.py builds no ATen choice for the forward convolution unless "ATEN" is in
max_autotune_conv_backends, and select_algorithm raises on an empty list (autotune_fallback_to_aten
is False by default). A plain CPU run (torch 2.13, "cpu" for "cuda") fails the same way, "Found from" line 27."""
import torch
import torch._inductor.config

torch._inductor.config.max_autotune = True
torch._inductor.config.max_autotune_conv_backends = "TRITON"


class Upsampler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_transpose2d = torch.nn.ConvTranspose2d(64, 128, kernel_size=(3, 5))

    def forward(self, x):
        return self.conv_transpose2d(x)


model = Upsampler().cuda()
compiled = torch.compile(model)
x = torch.randn(8, 64, 32, 64, device="cuda")
with torch.no_grad():
    out = compiled(x)
print(out.shape)
