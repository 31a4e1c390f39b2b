"""Per-station mean of sensor readings, scatter-style with index_add_.

Readings arrive as numpy float64 arrays; the accumulator is a default
(float32) torch.zeros buffer.  The aggregation is compiled.
"""
import numpy as np
import torch

rng = np.random.default_rng(0)
N_STATIONS = 6


def load_readings(n):
    station = rng.integers(0, N_STATIONS, size=n)
    temp_c = 15.0 + 3.0 * station + rng.normal(0.0, 0.5, size=n)   # float64 from numpy
    return torch.from_numpy(station), torch.from_numpy(temp_c)


@torch.compile
def station_means(station, temp_c):
    sums = torch.zeros(N_STATIONS)
    cnts = torch.zeros(N_STATIONS)
    sums.index_add_(0, station, temp_c)
    cnts.index_add_(0, station, torch.ones_like(sums[station]))
    return sums / cnts.clamp_min(1)


for day in range(3):
    station, temp_c = load_readings(500)
    means = station_means(station, temp_c)
    print(f"day {day}: " + " ".join(f"{m:.2f}" for m in means.tolist()))
