import torch

torch.manual_seed(0)


def make_blobs(n_per, centers, scale=0.4):
    pts = [c + scale * torch.randn(n_per, 2) for c in centers]
    labels = torch.arange(len(centers)).repeat_interleave(n_per)
    return torch.cat(pts), labels


@torch.compile
def spectral_embedding(points, n_clusters, sigma=1.0):
    d2 = torch.cdist(points, points).pow(2)
    affinity = torch.exp(-d2 / (2 * sigma ** 2))
    affinity.fill_diagonal_(0.0)
    d_inv_sqrt = affinity.sum(-1).rsqrt()
    norm_aff = d_inv_sqrt[:, None] * affinity * d_inv_sqrt[None, :]
    _, vecs = torch.lobpcg(norm_aff, k=n_clusters, largest=True)
    return vecs / vecs.norm(dim=-1, keepdim=True)


def kmeans(x, k, iters=20):
    centroids = x[torch.randperm(x.shape[0])[:k]]
    for _ in range(iters):
        assign = torch.cdist(x, centroids).argmin(-1)
        centroids = torch.stack([x[assign == j].mean(0) for j in range(k)])
    return assign


centers = torch.tensor([[0.0, 0.0], [4.0, 0.0], [2.0, 3.5]], dtype=torch.float64)
for trial in range(3):
    points, labels = make_blobs(80, centers)
    emb = spectral_embedding(points, 3)
    assign = kmeans(emb, 3)
    purity = sum(torch.bincount(labels[assign == j], minlength=3).max().item()
                 for j in range(3)) / labels.numel()
    print(f"trial {trial}: cluster purity {purity:.3f}")
