# A user studies how much accuracy a sensor pipeline keeps when readings are rounded to
# N decimal places before a small calibration polynomial, sweeping N with
# torch.round(x, decimals=ndigits) (the decimals= argument of torch.round, added in 1.11).
import torch

torch.manual_seed(0)

coef = torch.tensor([0.3, -1.2, 0.05, 2.0])


@torch.compile
def calibrate(raw, p):
    r = torch.round(raw * 1.7 * p) / p
    y = coef[0] + coef[1] * r + coef[2] * r * r + coef[3] * torch.sin(r)
    return y


raw = torch.randn(256, dtype=torch.float64).float()
exact = coef[0] + coef[1] * raw * 1.7 + coef[2] * (raw * 1.7) ** 2 + coef[3] * torch.sin(raw * 1.7)

for ndigits in range(10):
    y = calibrate(raw, torch.tensor(10.0 ** ndigits))
    err = (y.double() - exact.double()).abs().max().item()
    print(f"ndigits={ndigits} max_err={err:.3e}")

print("done:", calibrate(raw, torch.tensor(1000.0)).shape[0], "readings")
