import torch
torch._dynamo.config.capture_dynamic_output_shape_ops = True

torch.manual_seed(0)


@torch.compile
def energy_histogram(energies, n_bins):
    lo, hi = energies.min(), energies.max()
    scaled = (energies - lo) / (hi - lo) * (n_bins - 1)
    bins = scaled.round().long()
    counts = torch.bincount(bins, minlength=n_bins)
    centers = lo + (hi - lo) * torch.arange(n_bins) / (n_bins - 1)
    return counts, centers


def sample_energies(n, temperature):
    # Boltzmann-like energies of a 3D ideal gas: chi-squared with 3 dof
    v = torch.randn(n, 3) * temperature ** 0.5
    return 0.5 * (v ** 2).sum(dim=1)


for temperature in [0.5, 1.0, 2.0, 4.0]:
    e = sample_energies(50_000, temperature)
    counts, centers = energy_histogram(e, 40)
    peak = centers[counts.argmax()].item()
    print(f"T={temperature:.1f} mean E={e.mean().item():.3f} peak at {peak:.3f} "
          f"(theory {temperature / 2:.3f})")
