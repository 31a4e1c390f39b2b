import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
CHANNELS, WINDOW = 6, 64


def read_sensor_log(n_windows):
    t = np.arange(n_windows * WINDOW) / 50.0
    signal = np.stack([np.sin(t * (k + 1)) + 0.3 * rng.normal(size=t.shape) for k in range(CHANNELS)], axis=1)
    windows = signal.reshape(n_windows, WINDOW, CHANNELS)  # float64, (N, time, channel)
    activity = rng.integers(0, 3, size=n_windows).astype(np.int32)
    return windows, activity


class ActivityNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(CHANNELS, 32, 5, padding=2), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.head = nn.Linear(32, 3)

    def forward(self, x, mean, std):
        x = (x - mean) / std
        return self.head(self.conv(x.transpose(1, 2)))


model = torch.compile(ActivityNet().eval())
with torch.inference_mode():
    for day, n_windows in enumerate([40, 40, 40, 13]):
        windows, activity = read_sensor_log(n_windows)
        mean, std = float(windows.mean()), float(windows.std())
        x = torch.from_numpy(windows).float()
        labels = torch.from_numpy(activity).long()
        pred = model(x, mean, std).argmax(-1)
        print(f"day {day}: {n_windows} windows, agreement {(pred == labels).float().mean().item():.3f}")
