import math
import torch

torch.manual_seed(0)

# QPSK baseband link: symbols -> pulse-shaped I/Q -> channel -> matched filter.
SPS = 8
taps = torch.hann_window(2 * SPS + 1)
taps = taps / taps.sum()


@torch.compile
def modulate(bits, phase_offset, noise_std):
    i_sym = 1.0 - 2.0 * bits[:, 0::2].float()
    q_sym = 1.0 - 2.0 * bits[:, 1::2].float()
    i_up = torch.nn.functional.conv1d(i_sym.repeat_interleave(SPS, -1)[:, None], taps[None, None],
                                      padding=SPS)[:, 0]
    q_up = torch.nn.functional.conv1d(q_sym.repeat_interleave(SPS, -1)[:, None], taps[None, None],
                                      padding=SPS)[:, 0]
    iq = torch.complex(i_up, q_up)
    rotated = iq * torch.polar(torch.ones_like(phase_offset), phase_offset)
    noise = torch.complex(torch.randn_like(i_up), torch.randn_like(q_up)) * noise_std
    return rotated + noise


def demodulate(rx):
    samples = rx[:, SPS // 2::SPS]
    return torch.stack([samples.real < 0, samples.imag < 0], dim=-1).flatten(1).long()


bits = torch.randint(0, 2, (64, 256))
for snr_db in [0.0, 4.0, 8.0, 12.0]:
    noise_std = torch.tensor(10 ** (-snr_db / 20) / math.sqrt(2))
    rx = modulate(bits, torch.tensor(0.05), noise_std)
    ber = (demodulate(rx) != bits).float().mean()
    print(f"SNR {snr_db:4.1f} dB: bit error rate {ber.item():.5f}")
