# Random Fourier features (a Performer-style kernel approximation): the random
# projection is drawn once and memoised with functools.lru_cache so every call
# uses the same features; the kernel regression head is compiled.
import functools
import math
import torch

torch.manual_seed(0)


@functools.lru_cache(maxsize=None)
def rff_projection(d_in, n_feat):
    w = torch.randn(d_in, n_feat)
    b = 2 * math.pi * torch.rand(n_feat)
    return w, b


def features(x, n_feat=64):
    w, b = rff_projection(x.shape[-1], n_feat)
    return math.sqrt(2.0 / n_feat) * torch.cos(x @ w + b)


def kernel_predict(x_train, y_train, x_test, lam=1e-2):
    phi = features(x_train)
    a = phi.T @ phi + lam * torch.eye(phi.shape[1])
    coef = torch.linalg.solve(a, phi.T @ y_train)
    return features(x_test) @ coef


x_tr = torch.randn(128, 4)
y_tr = torch.sin(x_tr.sum(1, keepdim=True))
x_te = torch.randn(16, 4)

eager = kernel_predict(x_tr, y_tr, x_te)
torch._inductor.config.fallback_random = True
compiled_predict = torch.compile(kernel_predict)
comp = compiled_predict(x_tr, y_tr, x_te)
truth = torch.sin(x_te.sum(1, keepdim=True))
print(f"eager test mse    {(eager - truth).pow(2).mean().item():.4f}")
print(f"compiled test mse {(comp - truth).pow(2).mean().item():.4f}")
print(f"max |compiled - eager| {(comp - eager).abs().max().item():.4f}")
