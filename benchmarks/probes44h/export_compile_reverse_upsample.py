"""Export a small 1-D conv feature extractor with a dynamic length, then serve
`torch.compile(ep.module(), fullgraph=True)`.

The head flattens the (channels, time) map into tokens, upsamples them 2x with
repeat_interleave and reverses them for a right-to-left decoder. Once the
second clip length makes the compiled module dynamic, CPU Inductor's kernel for
flip(repeat_interleave(flatten(...))) returns garbage (source:
pytorch/pytorch#190765, reproduced there on the 2.13.0+cpu wheel).
"""
import torch
import torch.nn as nn
from torch.export import Dim

torch.manual_seed(0)


class ClipEncoder(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv1 = nn.Conv1d(ch, ch, 3, padding=1)
        self.conv2 = nn.Conv1d(ch, ch, 3, padding=1)

    def forward(self, x):  # x: (batch, ch, time)
        h = torch.relu(self.conv1(x))
        h = self.conv2(h) + x
        tokens = torch.flip(torch.flatten(h, 1).repeat_interleave(2, dim=1), dims=[1])
        return tokens


def main():
    model = ClipEncoder().eval()
    example = torch.randn(2, 8, 10)
    ep = torch.export.export(model, (example,), dynamic_shapes={"x": {2: Dim("time", min=2, max=512)}})
    served = torch.compile(ep.module(), fullgraph=True)

    for clip_len in (10, 13, 20, 31):
        clip = torch.randn(2, 8, clip_len)
        with torch.no_grad():
            out = served(clip)
            ref = model(clip)
        ok = torch.allclose(out, ref, atol=1e-5)
        print(f"len={clip_len} tokens={tuple(out.shape)} parity={'ok' if ok else 'MISMATCH'}")


if __name__ == "__main__":
    main()
