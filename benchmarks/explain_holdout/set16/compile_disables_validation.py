"""pytorch/pytorch PR #185438 ("Scope distribution validation disabling to Dynamo tracing",
https://github.com/pytorch/pytorch/pull/185438, closed unmerged): "TorchDynamo permanently
disabled torch.distributions parameter validation from TorchPatcher.patch() when a user
constructed a torch.compile wrapper. That changed Distribution._validate_args for the whole
Python process, so unrelated eager distribution constructors could silently accept invalid
parameters after any torch.compile use." Written as a user's training-data filter: an eager
helper relies on D.Normal raising ValueError for a non-positive scale to skip bad rows; once a
model has been compiled it no longer raises, the bad row's NaN loss gets through, and the
program's own finiteness check fails.
"""
import torch
import torch.distributions as D


def row_nll(mu, sigma, y):
    try:
        dist = D.Normal(mu, sigma)
    except ValueError:
        return None  # invalid parameters: skip the row
    return -dist.log_prob(y).mean()


torch.manual_seed(0)
net = torch.nn.Linear(4, 2)
model = torch.compile(net)
x = torch.randn(3, 4)
mu = model(x)[:, 0].detach()
sigma = torch.tensor([0.5, -0.2, 1.0])
y = torch.randn(3)
losses = [row_nll(mu[i:i + 1], sigma[i:i + 1], y[i:i + 1]) for i in range(3)]
kept = [l for l in losses if l is not None]
print("rows kept", len(kept), [round(l.item(), 4) for l in kept])
assert all(torch.isfinite(l) for l in kept), "a row with an invalid scale was not rejected"
