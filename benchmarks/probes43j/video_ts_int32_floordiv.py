"""Frame-time features for a long video clip, computed on the fly.

Frame timestamps are kept in int32 microseconds (as a decoder would hand them
over) and bucketed into whole seconds with floor division before a sinusoidal
time embedding.  At 25 fps a frame is 40000 us, so after ~53.7k frames the
int32 product overflows.  Related: pytorch/pytorch#175966, #108520, #190764
(Inductor not honouring int32 wrap-around in arange/index arithmetic).
"""
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
FRAME_US = 40_000          # 25 fps
N_FRAMES = 60_000          # a 40-minute clip
DIM = 16


class TimeEmbed(nn.Module):
    def __init__(self, dim=DIM, max_period=3600.0):
        super().__init__()
        freqs = torch.exp(-math.log(max_period) * torch.arange(dim // 2) / (dim // 2))
        self.register_buffer("freqs", freqs)
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames):
        n = frames.shape[0]
        sec = (torch.arange(n, dtype=torch.int32, device=frames.device) * FRAME_US) // 1_000_000
        ang = sec.float()[:, None] * self.freqs[None, :]
        temb = torch.cat([ang.sin(), ang.cos()], dim=-1)
        return frames + self.proj(temb)


def main():
    model = TimeEmbed().eval()
    cmodel = torch.compile(model)
    frames = torch.randn(N_FRAMES, DIM) * 0.1
    with torch.no_grad():
        out = cmodel(frames)
    print("out shape:", tuple(out.shape))
    print("last-frame feature sum: %.4f" % out[-1].sum().item())
    print("mean over last minute: %.4f" % out[-1500:].mean().item())


if __name__ == "__main__":
    main()
