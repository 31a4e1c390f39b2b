"""Simulate int8 per-channel weight-only quantization of an MLP at inference.

Each linear layer re-quantizes its weight per output channel with PyTorch's
quantized-tensor API (torch.quantize_per_channel -> dequantize) so the accuracy
of an int8 deployment can be measured before exporting.  The model is compiled
with torch.compile.  Pattern from PyTorch's quantization tutorials / tests
(test/quantization: quantize_per_channel then dequantize for weight observers).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Int8SimLinear(nn.Linear):
    def forward(self, x):
        w = self.weight
        scale = (w.abs().amax(dim=1) / 127.0).clamp_min(1e-8).double()
        zero_point = torch.zeros(w.shape[0], dtype=torch.long)
        wq = torch.quantize_per_channel(w, scale, zero_point, 0, torch.qint8)
        w_sim = wq.dequantize()
        return F.linear(x, w_sim, self.bias)


class MLP(nn.Module):
    def __init__(self, d_in=64, d_hidden=128, d_out=10):
        super().__init__()
        self.fc1 = Int8SimLinear(d_in, d_hidden)
        self.fc2 = Int8SimLinear(d_hidden, d_hidden)
        self.fc3 = Int8SimLinear(d_hidden, d_out)

    def forward(self, x):
        x = F.gelu(self.fc1(x))
        x = F.gelu(self.fc2(x))
        return self.fc3(x)


def main():
    model = MLP().eval()
    cmodel = torch.compile(model)
    correct = total = 0
    max_err = 0.0
    with torch.no_grad():
        for step in range(8):
            x = torch.randn(32, 64)
            y_q = cmodel(x)
            y_f = F.linear(F.gelu(F.linear(F.gelu(F.linear(x, model.fc1.weight, model.fc1.bias)),
                                           model.fc2.weight, model.fc2.bias)),
                           model.fc3.weight, model.fc3.bias)
            correct += (y_q.argmax(1) == y_f.argmax(1)).sum().item()
            total += x.shape[0]
            max_err = max(max_err, (y_q - y_f).abs().max().item())
    print(f"int8 sim top-1 agreement: {correct}/{total}")
    print(f"max |int8 - fp32| logit error: {max_err:.5f}")


if __name__ == "__main__":
    main()
