# Elbow method: run k-means for several k and print the inertia curve.
# The centroid update uses a one-hot assignment matrix (a common vectorised k-means).
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def make_blobs(n_per, centers):
    pts = [torch.randn(n_per, 2) * 0.4 + torch.tensor(c) for c in centers]
    return torch.cat(pts)


@torch.compile
def kmeans_inertia(X, k, eye_k, iters=6):
    C = X[:: X.shape[0] // k][:k].clone()           # deterministic init, spread over the data
    for _ in range(iters):
        assign = torch.cdist(X, C).argmin(1)
        onehot = eye_k[assign]    # (n, k)
        counts = onehot.sum(0).clamp(min=1)
        C = (onehot.T @ X) / counts.unsqueeze(1)
    assign = torch.cdist(X, C).argmin(1)
    return ((X - C[assign]) ** 2).sum()


def main():
    X = make_blobs(30, [(0, 0), (3, 0), (0, 3), (3, 3)])
    X = X[torch.randperm(X.shape[0])]
    for k in range(2, 5):
        inertia = kmeans_inertia(X, k, torch.eye(k))
        print(f"k={k} inertia={inertia.item():.3f}")


if __name__ == "__main__":
    main()
