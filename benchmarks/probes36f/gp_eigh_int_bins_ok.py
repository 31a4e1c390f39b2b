# Gaussian-process style scoring on a small float64 dataset: PCA-whiten the inputs with eigh,
# build an RBF kernel, solve with a Cholesky factor, score with a Student-t log-density
# (lgamma), and bucket the signed residuals into integer bins with floor division and
# remainders (negative values included). The scoring step is compiled.
import math
import torch

torch.manual_seed(0)


def gp_score(x, y, noise, nu):
    xc = x - x.mean(0)
    evals, evecs = torch.linalg.eigh(xc.T @ xc / (x.shape[0] - 1))
    z = xc @ evecs / torch.sqrt(evals.clamp_min(1e-12))          # whitened inputs
    K = torch.exp(-0.5 * torch.cdist(z, z).pow(2)) + noise * torch.eye(x.shape[0], dtype=x.dtype)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L).squeeze(-1)
    resid = y - (K - noise * torch.eye(x.shape[0], dtype=x.dtype)) @ alpha
    t = resid / math.sqrt(noise)
    logp = (torch.lgamma(torch.tensor((nu + 1) / 2, dtype=x.dtype)) - math.lgamma(nu / 2)
            - 0.5 * math.log(nu * math.pi) - (nu + 1) / 2 * torch.log1p(t * t / nu))
    milli = torch.round(resid * 1000).to(torch.int64)
    bins = torch.div(milli, 25, rounding_mode="floor")
    within = milli % 25
    median = torch.kthvalue(resid, (resid.shape[0] + 1) // 2).values
    return logp.sum(), bins, within, median


x = torch.randn(24, 3, dtype=torch.float64) * torch.tensor([1.0, 5.0, 0.2], dtype=torch.float64)
compiled = torch.compile(gp_score)
for step in range(3):
    y = torch.sin(x[:, 0]) + 0.1 * x[:, 1] + 0.05 * torch.randn(24, dtype=torch.float64)
    lp_c, b_c, w_c, m_c = compiled(x, y, 0.01, 4.0)
    lp_e, b_e, w_e, m_e = gp_score(x, y, 0.01, 4.0)
    print(f"step {step}: logp {lp_c.item():.8f} (eager {lp_e.item():.8f}) median {m_c.item():.6f}"
          f" bins {b_c[:6].tolist()} rem {w_c[:6].tolist()} same ints {torch.equal(b_c, b_e) and torch.equal(w_c, w_e)}")
