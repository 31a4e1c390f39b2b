# Quantisation-aware training of a small MLP with the built-in fake-quant ops
# (torch.fake_quantize_per_tensor_affine for activations, per-channel for weights),
# the model compiled, the optimizer step eager. Pattern from QAT tutorials / hand-rolled QAT code.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class QATLinear(nn.Linear):
    def forward(self, x):
        w_scale = self.weight.detach().abs().amax(1).clamp_min(1e-8) / 127.0
        w_zp = torch.zeros(self.out_features, dtype=torch.int32)
        wq = torch.fake_quantize_per_channel_affine(self.weight, w_scale, w_zp, 0, -128, 127)
        a_scale = x.detach().abs().amax().clamp_min(1e-8).reshape(1) / 127.0
        a_zp = torch.zeros(1, dtype=torch.int32)
        xq = torch.fake_quantize_per_tensor_affine(x, a_scale, a_zp, -128, 127)
        return F.linear(xq, wq, self.bias)


model = nn.Sequential(QATLinear(32, 64), nn.ReLU(), QATLinear(64, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


cmodel = torch.compile(model)


def train_step(x, y):
    loss = F.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


X = torch.randn(128, 32)
Y = (X[:, :10].argmax(1))
for step in range(6):
    loss = train_step(X, Y)
    print(step, f"{loss.item():.4f}")
