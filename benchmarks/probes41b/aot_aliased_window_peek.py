"""Streaming sensor features: a frame buffer decayed in place by a compiled step.

The step receives the whole history buffer and a view of its most recent
frames (``buf[1:]``), decays the buffer in place and returns the first frame
of the recent window for a monitoring line.  Both arguments share storage
(AOTAutograd builds a "synthetic base" for them).

Source: pytorch/pytorch issue #198095 ("[aot_autograd] Output that is a view
of an aliased input (synthetic base) is regenerated from the wrong tensor").
"""
import torch

torch.manual_seed(0)

FRAMES, DIM = 5, 6


class FrameBuffer:
    def __init__(self, frames, dim):
        self.buf = torch.zeros(frames, dim)

    def push(self, frame):
        self.buf = torch.roll(self.buf, shifts=-1, dims=0)
        self.buf[-1] = frame

    def recent(self):
        return self.buf[1:]          # a view: shares storage with self.buf


@torch.compile
def decay_and_peek(buf, window, gain):
    buf.mul_(gain).add_(0.1)         # decay every stored frame in place
    return window[0]                 # oldest frame of the recent window


def main():
    fb = FrameBuffer(FRAMES, DIM)
    total = torch.zeros(DIM)
    for step in range(8):
        frame = torch.randn(DIM)
        fb.push(frame)
        peek = decay_and_peek(fb.buf, fb.recent(), 0.9)
        total += peek
        if step % 3 == 0:
            print(f"step {step}: peek mean {peek.mean().item():.4f}")
    print(f"accumulated peek sum: {total.sum().item():.4f}")
    print(f"buffer checksum: {fb.buf.sum().item():.4f}")


if __name__ == "__main__":
    main()
