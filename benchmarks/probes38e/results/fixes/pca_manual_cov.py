# PCA of a deduplicated tabular table: identical rows are stored once with a count,
# and the covariance is weighted by those frequency weights (torch.cov fweights).
import torch

torch.manual_seed(0)


def dedup(X):
    rows, counts = torch.unique(X, dim=0, return_counts=True)
    return rows, counts


@torch.compile
def weighted_pca(rows, counts, n_components: int = 2):
    mean = (rows * counts.unsqueeze(1)).sum(0) / counts.sum()
    xc = rows - mean
    cov = (counts.unsqueeze(1) * xc).T @ xc / (counts.sum() - 1)
    evals, evecs = torch.linalg.eigh(cov)
    order = torch.argsort(evals, descending=True)[:n_components]
    comps = evecs[:, order]
    explained = evals[order] / evals.sum()
    return mean, comps, explained


def main():
    # integer-coded tabular features: many duplicated rows
    X = torch.randint(0, 4, (200, 4)).float()
    X[:, 1] = X[:, 0] + torch.randint(0, 2, (200,)).float()
    rows, counts = dedup(X)
    for step in range(3):
        mean, comps, explained = weighted_pca(rows, counts)
        proj = (rows - mean) @ comps
        print(f"step {step}: unique rows {rows.shape[0]}, explained {explained.tolist()}")
        print("  first projections", [round(v, 3) for v in proj[:3, 0].tolist()])


if __name__ == "__main__":
    main()
