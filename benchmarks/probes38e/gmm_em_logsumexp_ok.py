# Diagonal Gaussian mixture fitted by EM: log-densities, log-sum-exp normaliser,
# responsibilities, and the M-step, all in one compiled em_step; fixed iteration count.
import math
import torch

torch.manual_seed(0)


@torch.compile
def em_step(X, means, log_vars, log_w):
    # E-step: log N(x | mu_k, diag(var_k)) + log pi_k
    var = log_vars.exp()                                      # (k, d)
    diff = X.unsqueeze(1) - means.unsqueeze(0)                # (n, k, d)
    log_dens = -0.5 * ((diff ** 2) / var + log_vars + math.log(2 * math.pi)).sum(-1)
    joint = log_dens + log_w                                  # (n, k)
    log_norm = torch.logsumexp(joint, dim=1, keepdim=True)
    resp = (joint - log_norm).exp()
    # M-step
    nk = resp.sum(0) + 1e-8
    means = (resp.T @ X) / nk.unsqueeze(1)
    diff = X.unsqueeze(1) - means.unsqueeze(0)
    var = (resp.unsqueeze(2) * diff ** 2).sum(0) / nk.unsqueeze(1) + 1e-4
    log_w = (nk / X.shape[0]).log()
    return means, var.log(), log_w, log_norm.mean()


def main():
    X = torch.cat([torch.randn(60, 2) * 0.5 + torch.tensor([-2.0, 0.0]),
                   torch.randn(60, 2) * 0.8 + torch.tensor([2.0, 1.0])])
    k = 2
    means = X[torch.tensor([0, 119])].clone()
    log_vars = torch.zeros(k, 2)
    log_w = torch.full((k,), -math.log(k))
    for it in range(8):
        means, log_vars, log_w, ll = em_step(X, means, log_vars, log_w)
        print(f"iter {it}: mean log-lik {ll.item():.4f}")
    order = means[:, 0].argsort()
    print("means", [[round(v, 3) for v in r] for r in means[order].tolist()])
    print("weights", [round(v, 3) for v in log_w.exp()[order].tolist()])


if __name__ == "__main__":
    main()
