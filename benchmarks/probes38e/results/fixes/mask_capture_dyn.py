# Lloyd's k-means written the textbook way: each centroid is the mean of the points
# assigned to it, selected with a boolean mask; empty clusters keep their old centroid.
import torch
torch._dynamo.config.capture_dynamic_output_shape_ops = True

torch.manual_seed(0)


@torch.compile
def lloyd_step(X, C):
    d = torch.cdist(X, C)
    assign = d.argmin(1)
    new_C = C.clone()
    for j in range(C.shape[0]):
        members = X[assign == j]
        if members.shape[0] > 0:
            new_C[j] = members.mean(0)
    inertia = d.gather(1, assign.unsqueeze(1)).pow(2).sum()
    return new_C, inertia


def main():
    centers = torch.tensor([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    X = torch.cat([torch.randn(40, 2) * 0.5 + c for c in centers])
    C = X[torch.randperm(X.shape[0])[:3]].clone()
    for it in range(5):
        C, inertia = lloyd_step(X, C)
        print(f"iter {it}: inertia {inertia.item():.3f}")
    order = C[:, 0].argsort()
    print("centroids", [[round(v, 3) for v in row] for row in C[order].tolist()])


if __name__ == "__main__":
    main()
