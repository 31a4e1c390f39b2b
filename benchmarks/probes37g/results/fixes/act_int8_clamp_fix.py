# Static int8 activation quantisation: the scale is calibrated on one batch (max-abs / 127),
# then later batches are quantised with that fixed scale. The quantiser casts with
# .to(torch.int8) directly and has no clamp to [-128, 127]; a test batch with outliers
# goes out of the calibrated range (a common bug report pattern in hand-written PTQ code).
import torch
import torch.nn as nn

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)).eval()


def quant_dequant(h, scale):
    q = torch.round(h / scale).clamp(-128, 127).to(torch.int8)
    return q.float() * scale


def forward(x, scale):
    h = net[1](net[0](x))
    h = quant_dequant(h, scale)
    return net[2](h)


with torch.no_grad():
    calib = torch.randn(64, 16)
    scale = net[1](net[0](calib)).abs().amax() / 127.0

    test = torch.randn(64, 16) * 3.0  # wider inputs than the calibration batch
    compiled = torch.compile(forward)
    out_eager = forward(test, scale)
    out_comp = compiled(test, scale)

print("scale", f"{scale.item():.5f}")
print("eager   ", [round(v, 3) for v in out_eager[0, :4].tolist()])
print("compiled", [round(v, 3) for v in out_comp[0, :4].tolist()])
print("max |compiled - eager|", f"{(out_comp - out_eager).abs().max().item():.3f}")
