"""Serving a multi-channel event-rate model compiled with Inductor on CPU.

A small conv encoder runs over each sensor's log-rate history; the head reads the latest
time step, turns it into an event rate, adds a learned per-channel baseline and reports
each channel's rate relative to the cross-channel mean, paired with its raw log-rate.

Source: PyTorch test test/inductor/test_cpu_repro.py::
CPUReproTests::test_outer_loop_local_buffer_with_tiled_outer_dim (issue #185702,
fixed after 2.13 by PR #185855).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

N_CHANNELS = 32
HISTORY = 48


class RateModel(nn.Module):
    def __init__(self, channels=N_CHANNELS):
        super().__init__()
        self.encoder = nn.Conv1d(channels, channels, kernel_size=3, padding=1)
        self.baseline = nn.Parameter(torch.randn(channels) * 0.5)

    def forward(self, history):  # history: (batch, channels, time)
        feats = self.encoder(history)
        log_rate = feats[..., -1]  # latest time step per channel
        rate = log_rate.exp() + self.baseline
        rel = rate - rate.mean(dim=-1, keepdim=True)
        return torch.stack([rel, log_rate], dim=-1)  # (batch, channels, 2)


model = RateModel().eval()
serve = torch.compile(model)

with torch.no_grad():
    for request in range(3):
        history = torch.randn(16, N_CHANNELS, HISTORY)
        out = serve(history)
        rel = out[..., 0]
        hot = rel.argmax(dim=-1)
        print(
            f"request {request}: rel-rate sum/row={rel.sum(-1).abs().max().item():.4f} "
            f"max rel={rel.max().item():.3f} hottest channels={hot[:6].tolist()}"
        )
