"""Online sensor anomaly scorer: a small MLP autoencoder behind a feature
normaliser whose running statistics are created lazily on the first batch
(the usual "I don't know the feature size until data arrives" pattern),
compiled for inference and run over a stream of batches.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class RunningNorm(nn.Module):
    def __init__(self, n_feat, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.eps = eps
        # the right fix (not compdiag's): state created in __init__ as buffers
        self.register_buffer("running_mean", torch.zeros(n_feat))
        self.register_buffer("running_var", torch.ones(n_feat))

    def forward(self, x):
        m = self.momentum
        self.running_mean.mul_(1 - m).add_(m * x.mean(0).detach())
        self.running_var.mul_(1 - m).add_(m * x.var(0).detach())
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps)


class Scorer(nn.Module):
    def __init__(self, n_feat=16, hidden=8):
        super().__init__()
        self.norm = RunningNorm(n_feat)
        self.enc = nn.Sequential(nn.Linear(n_feat, hidden), nn.Tanh())
        self.dec = nn.Linear(hidden, n_feat)

    def forward(self, x):
        z = self.norm(x)
        recon = self.dec(self.enc(z))
        return ((recon - z) ** 2).mean(1)  # anomaly score per row


def sensor_stream(n_batches, batch=32, n_feat=16):
    base = torch.linspace(0.5, 2.0, n_feat)
    for i in range(n_batches):
        x = base + 0.2 * torch.randn(batch, n_feat)
        if i == 7:
            x[3] += 4.0  # an anomalous reading
        yield x


def main():
    model = Scorer().eval()
    scorer = torch.compile(model)
    flagged = []
    with torch.no_grad():
        for i, x in enumerate(sensor_stream(10)):
            s = scorer(x)
            top = int(s.argmax())
            if s[top] > 3 * s.median():
                flagged.append((i, top))
            print(f"batch {i}: max score {s.max().item():.3f}")
    print("flagged (batch, row):", flagged)


if __name__ == "__main__":
    main()
