# VQ-VAE style quantizer that keeps decayed usage counts of its codes in a buffer, used to
# find dead codes for restarts. The buffer is registered as int64 ("counts are integers")
# and decayed in place with a float factor: self.usage.mul_(self.decay).
# Eager PyTorch rejects this ("result type Float can't be cast to the desired output type
# Long"); the compiled module accepts it and silently truncates the product back to int64
# every step, so the counts are floored each step and codes look dead far more often.
import torch

torch.manual_seed(0)


class EMAQuantizer(torch.nn.Module):
    def __init__(self, num_codes=64, dim=16, decay=0.9):
        super().__init__()
        self.codebook = torch.nn.Parameter(torch.randn(num_codes, dim))
        self.decay = decay
        self.register_buffer("usage", torch.zeros(num_codes, dtype=torch.long))

    def forward(self, z):
        dist = torch.cdist(z, self.codebook)
        codes = dist.argmin(dim=1)
        with torch.no_grad():
            self.usage.mul_(self.decay)  # decay old counts
            self.usage.index_add_(0, codes, torch.ones_like(codes))
        quant = self.codebook[codes]
        # straight-through estimator
        return z + (quant - z).detach(), codes


vq = EMAQuantizer()
cvq = torch.compile(vq)
for step in range(20):
    z = torch.randn(256, 16)
    q, codes = cvq(z)

print("usage:", vq.usage.tolist())
print("dead codes (usage < 1):", int((vq.usage < 1).sum()))
