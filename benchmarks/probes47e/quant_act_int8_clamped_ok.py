# Post-training static int8 quantization of activations: scales are calibrated on a
# small, well-behaved batch and reused at inference, where the data has larger values.
# The quantizer rounds and casts to int8 and clamps to [-128, 127] before the cast.
import torch
import torch.nn as nn

torch.manual_seed(0)


class QuantLinear(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(fin, fout)
        self.register_buffer("scale", torch.tensor(1.0))

    @torch.no_grad()
    def calibrate(self, x):
        self.scale.fill_(x.abs().amax() / 127.0)

    def forward(self, x):
        q = torch.round(x / self.scale).clamp(-128, 127).to(torch.int8)
        return self.lin(q.float() * self.scale)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = QuantLinear(64, 128)
        self.fc2 = QuantLinear(128, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Classifier().eval()
with torch.no_grad():
    calib = torch.randn(32, 64) * 0.5
    model.fc1.calibrate(calib)
    model.fc2.calibrate(torch.relu(model.fc1.lin(calib)))

compiled = torch.compile(model)
with torch.no_grad():
    batch = torch.randn(256, 64) * 2.0  # inference data: wider than the calibration batch
    logits = compiled(batch)
    preds = logits.argmax(dim=1)
print("logit mean %.4f" % logits.mean().item())
print("class histogram", torch.bincount(preds, minlength=10).tolist())
