"""pytorch/pytorch#169477 ("torch.compile on @torch.inferece_mode() cause RuntimeError: <weakref ...
to 'torch.storage.UntypedStorage' ...>", open): a module whose forward is decorated with
@torch.inference_mode() and slices a tensor attribute runs in eager, and its compile fails inside
AOTAutograd while running the slice (torch 2.13 words it "Cannot set version_counter for inference
tensor"). Here: a serving-side rotary table that slices its cos/sin cache at the decode position."""
import torch
from torch import nn


class RotaryTable(nn.Module):
    def __init__(self, max_len=16, dim=4):
        super().__init__()
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        self.cos = torch.cos(pos / (10.0 ** torch.arange(dim)))

    @torch.inference_mode()
    def forward(self, start_pos: int, q):
        cos = self.cos[start_pos : start_pos + q.shape[0]]
        return q * cos


table = RotaryTable()
q = torch.randn(3, 4)
print("eager:", table(1, q).shape)
served = torch.compile(table)
for pos in (1, 2):
    print("compiled:", served(pos, q).shape)
