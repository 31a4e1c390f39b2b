# Compress sentence embeddings to uint8 codes for a vector store: a compiled
# encoder head normalizes, quantizes per tensor and returns the raw bytes.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SCALE, ZERO_POINT = 2.0 / 255, 128


class CodeHead(nn.Module):
    def __init__(self, dim=128, out=64):
        super().__init__()
        self.proj = nn.Linear(dim, out)

    def forward(self, h):
        e = F.normalize(self.proj(h), dim=-1)
        return torch.clamp(torch.round(e / SCALE) + ZERO_POINT, 0, 255).to(torch.uint8)


head = CodeHead().eval()
encode = torch.compile(head)
store = []
with torch.no_grad():
    for batch in range(4):
        hidden = torch.randn(32, 128)
        codes = encode(hidden)
        store.append(codes)
        recon = (codes.float() - ZERO_POINT) * SCALE
        err = (recon - F.normalize(head.proj(hidden), dim=-1)).abs().max().item()
        print(f"batch {batch}: codes {tuple(codes.shape)} {codes.dtype}  max recon err {err:.4f}")
print("stored bytes:", sum(c.numel() for c in store))
