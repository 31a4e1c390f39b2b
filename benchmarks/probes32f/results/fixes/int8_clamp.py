# Weight-only int8 inference for a small classifier: weights are stored as
# int8 + per-row scales and dequantized inside the compiled forward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BITS = 8


class Int8Linear(nn.Module):
    def __init__(self, linear):
        super().__init__()
        self.register_buffer("w_fp", linear.weight.detach().clone())
        self.register_buffer("bias", linear.bias.detach().clone())

    def forward(self, x):
        scale = self.w_fp.abs().amax(dim=1, keepdim=True) / 2 ** (BITS - 1)
        w_q = torch.round(self.w_fp / scale).clamp(-128, 127).to(torch.int8)
        w = w_q.to(x.dtype) * scale
        return F.linear(x, w, self.bias)


model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
x = torch.randn(2048, 64)
y = (x[:, :10] * 3 + 0.5 * torch.randn(2048, 10)).argmax(1)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(150):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

qmodel = nn.Sequential(Int8Linear(model[0]), nn.ReLU(), Int8Linear(model[2])).eval()
qmodel = torch.compile(qmodel)
x_test = torch.randn(512, 64)
y_test = (x_test[:, :10] * 3).argmax(1)
with torch.no_grad():
    fp_acc = (model(x_test).argmax(1) == y_test).float().mean().item()
    for batch in range(3):
        logits = qmodel(x_test)
        q_acc = (logits.argmax(1) == y_test).float().mean().item()
        print(f"batch {batch}: fp32 acc {fp_acc:.3f}  int8 acc {q_acc:.3f}  logit sum {logits.sum().item():.3f}")
