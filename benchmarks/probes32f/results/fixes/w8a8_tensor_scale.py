# Emulated W8A8 inference: weights quantized once, activations quantized per batch
# with a dynamic per-tensor scale, int8 x int8 products accumulated in int32.
import torch
import torch.nn as nn

torch.manual_seed(0)


class W8A8Linear(nn.Module):
    def __init__(self, linear):
        super().__init__()
        w = linear.weight.detach()
        w_scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127
        self.register_buffer("w_q", torch.round(w / w_scale).clamp(-127, 127).to(torch.int8))
        self.register_buffer("w_scale", w_scale.t())
        self.register_buffer("bias", linear.bias.detach().clone())

    def forward(self, x):
        x_scale = x.abs().max().clamp(min=1e-8) / 127
        x_q = torch.round(x / x_scale).clamp(-127, 127).to(torch.int8)
        acc = x_q.to(torch.int32) @ self.w_q.t().to(torch.int32)
        return acc.to(torch.float32) * (x_scale * self.w_scale) + self.bias


fp_model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 16))
q_model = nn.Sequential(*[W8A8Linear(m) if isinstance(m, nn.Linear) else m for m in fp_model]).eval()
q_model = torch.compile(q_model)

with torch.no_grad():
    for batch in range(4):
        x = torch.randn(64, 128)
        ref = fp_model(x)
        out = q_model(x)
        rel = ((out - ref).norm() / ref.norm()).item()
        print(f"batch {batch}: relative error vs fp32 {rel:.4f}")
