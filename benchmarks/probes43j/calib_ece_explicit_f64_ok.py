"""Inference service with a periodic calibration (ECE) report.

Predictions come from a compiled `predict`.  Every few batches a calibration
report is computed with float64 histogram accumulators, created with an
explicit dtype= (the global default dtype is left alone).  Correct cousin of
calib_ece_default_dtype.py.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
N_BINS = 10


@torch.compile
def predict(model, x):
    return model(x).softmax(-1)


def calibration_report(model, batches):
    conf_sum, acc_sum, counts = (torch.zeros(N_BINS, dtype=torch.float64) for _ in range(3))
    for x, y in batches:
        conf, pred = predict(model, x).max(-1)
        b = (conf * N_BINS).long().clamp_(max=N_BINS - 1)
        conf_sum.index_add_(0, b, conf.to(conf_sum.dtype))
        acc_sum.index_add_(0, b, (pred == y).to(acc_sum.dtype))
        counts.index_add_(0, b, torch.ones(b.shape[0], dtype=torch.float64))
    nz = counts > 0
    ece = ((conf_sum[nz] - acc_sum[nz]).abs()).sum() / counts.sum()
    return ece.item()


def main():
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
    proj = torch.randn(20, 5)
    held_out = []
    for _ in range(4):
        x = torch.randn(64, 20)
        held_out.append((x, (x @ proj).argmax(-1)))
    served = 0
    with torch.no_grad():
        for step in range(1, 13):
            x = torch.randn(64, 20)
            served += int(predict(model, x).argmax(-1).bincount(minlength=5)[0])
            if step % 4 == 0:
                print(f"step {step:2d} class-0 served {served:3d} ECE {calibration_report(model, held_out):.5f}")


if __name__ == "__main__":
    main()
