# Validate fixed-size binary frames with an 8-bit two's-complement checksum: the sender
# appends a byte so that every frame sums to 0 mod 256; the receiver checks
# frames.sum(dim=1, dtype=torch.uint8) == 0 (modular uint8 arithmetic on purpose).
# Under torch.compile on an AVX2 CPU the vectorized uint8 sum loads 8 bytes per step into a
# 32-lane Vectorized<uint8_t> and then reduces all 32 lanes, so the vectorized part of each
# row is counted 4 times: every frame fails the check (eager: 990 of 1000 pass).
# (Same inactive-lane family as pytorch/pytorch#191499, which reports int8/uint8 min/max.)
import torch

torch.manual_seed(0)


def seal(payload):
    csum = (256 - payload.to(torch.int64).sum(dim=1) % 256) % 256
    return torch.cat([payload, csum.to(torch.uint8)[:, None]], dim=1)


@torch.compile
def frames_ok(frames):
    return frames.sum(dim=1, dtype=torch.uint8) == 0


payload = torch.randint(0, 256, (1000, 63), dtype=torch.uint8)
frames = seal(payload)
frames[::100, 5] ^= 0x10  # corrupt every 100th frame in transit

ok = frames_ok(frames)
print(f"valid frames: {int(ok.sum())} / {len(frames)}")
print("first bad frames:", torch.nonzero(~ok).flatten()[:5].tolist())
