# Sparse coding by ISTA with the shrinkage written as a custom op (to be replaced by a vendor
# kernel later), with a fake impl. The compiled solver runs under fullgraph=True; inputs are
# validated in plain Python before the call, and a bad signal is skipped, not fatal.
import torch


@torch.library.custom_op("sparse::shrink", mutates_args=())
def shrink(z: torch.Tensor, thresh: float) -> torch.Tensor:
    return torch.sign(z) * torch.clamp(z.abs() - thresh, min=0.0)


@shrink.register_fake
def _(z, thresh):
    return torch.empty_like(z)


@torch.compile(fullgraph=True)
def ista(D, y, step, lam, n_iter: int = 30):
    z = torch.zeros(y.shape[0], D.shape[1])
    for _ in range(n_iter):
        grad = (z @ D.T - y) @ D
        z = shrink(z - step * grad, lam * step)
    return z


def encode(D, y, lam=0.1):
    if y.dim() != 2 or y.shape[1] != D.shape[0]:
        raise ValueError(f"signal shape {tuple(y.shape)} does not match dictionary {tuple(D.shape)}")
    step = 1.0 / torch.linalg.matrix_norm(D, ord=2).item() ** 2
    return ista(D, y, step, lam)


def main():
    torch.manual_seed(0)
    D = torch.nn.functional.normalize(torch.randn(20, 40), dim=0)
    z_true = torch.zeros(6, 40)
    z_true[:, :3] = torch.randn(6, 3)
    signals = [z_true @ D.T, torch.randn(6, 19), (0.5 * z_true) @ D.T]
    for i, y in enumerate(signals):
        try:
            z = encode(D, y)
        except ValueError as err:
            print(f"signal {i}: skipped ({err})")
            continue
        resid = (z @ D.T - y).norm().item()
        print(f"signal {i}: nnz {(z.abs() > 1e-6).sum().item()} residual {resid:.4f}")


if __name__ == "__main__":
    main()
