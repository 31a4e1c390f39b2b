"""pytorch/pytorch PR #185438 ("Scope distribution validation disabling to Dynamo tracing",
https://github.com/pytorch/pytorch/pull/185438, closed): Dynamo switches torch.distributions'
default argument validation off because the validation path "enters skipped constraints
helpers". A user who asks for validation explicitly (`validate_args=True`) still takes that
path: Distribution.__init__ calls torch.distributions.constraints.is_dependent, which Dynamo
refuses to trace, so a fullgraph compile of a Gaussian negative log-likelihood fails.
"""
import torch
import torch.distributions as D


def gaussian_nll(mu, log_sigma, y):
    policy = D.Normal(mu, log_sigma.exp(), validate_args=True)
    return -policy.log_prob(y).mean()


torch.manual_seed(0)
mu = torch.randn(16)
log_sigma = torch.randn(16) * 0.1
y = torch.randn(16)
print("eager   ", round(gaussian_nll(mu, log_sigma, y).item(), 4))
print("compiled", round(torch.compile(gaussian_nll, fullgraph=True)(mu, log_sigma, y).item(), 4))
