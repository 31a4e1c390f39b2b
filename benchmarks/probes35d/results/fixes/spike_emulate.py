import torch
import torch.nn.functional as F

torch.manual_seed(0)
import torch._inductor.config
torch._inductor.config.emulate_precision_casts = True
BIN_S = 0.1        # 100 ms bins
N_BINS = 20        # a 2 s window


def firing_rates(spike_times, weights):
    # spike_times: (neurons, spikes) in seconds, logged with 1 ms resolution
    bins = (spike_times // BIN_S).long().clamp(0, N_BINS - 1)
    counts = (F.one_hot(bins, N_BINS).float() * weights[..., None]).sum(1)
    return counts / BIN_S                      # spikes per second per bin


spike_times = torch.randint(0, 2000, (6, 400)).float() / 1000.0
weights = torch.ones(6, 400)

eager_rates = firing_rates(spike_times, weights)
comp_rates = torch.compile(firing_rates)(spike_times, weights)

print("eager    neuron 0:", eager_rates[0, :8].tolist())
print("compiled neuron 0:", comp_rates[0, :8].tolist())
diff = (eager_rates - comp_rates).abs().max().item()
moved = (eager_rates != comp_rates).sum().item()
print(f"bins that differ: {moved}, max |compiled - eager| = {diff:.1f} spikes/s")
print("total spikes eager", eager_rates.sum().item() * BIN_S, "compiled", comp_rates.sum().item() * BIN_S)
