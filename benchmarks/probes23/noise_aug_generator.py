"""A data-pipeline step that adds reproducible Gaussian noise with its own torch.Generator
(seeded per worker) before normalising; the generator keyword is what Dynamo cannot put in a
graph (pytorch/pytorch#88576, "Dynamo handling for all methods of torch.Generator")."""
import torch


class NoiseAugment:
    def __init__(self, sigma, seed):
        self.sigma = sigma
        self.gen = torch.Generator().manual_seed(seed)

    def __call__(self, batch):
        centred = batch - batch.mean(dim=(1, 2), keepdim=True)
        noise = torch.randn(batch.shape, generator=self.gen) * self.sigma
        noisy = centred + noise
        return noisy / noisy.std(dim=(1, 2), keepdim=True).clamp(min=1e-6)


def preprocess(batch, aug):
    batch = batch.float() / 255.0
    return aug(batch)


aug = NoiseAugment(sigma=0.05, seed=1234)
prep = torch.compile(preprocess)
for epoch in range(3):
    raw = torch.randint(0, 256, (4, 16, 16), dtype=torch.uint8)
    out = prep(raw, aug)
    print(epoch, tuple(out.shape), round(float(out.std()), 3))
