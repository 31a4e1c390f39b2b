"""pytorch/pytorch#194596 ("[torch.compile] Wishart.mean with tensor-valued df fails under
fullgraph=True", https://github.com/pytorch/pytorch/issues/194596): Wishart's constructor branches
on the tensor `df` (invalid and low-df checks), a data-dependent branch inside
torch.distributions that fails a fullgraph compile at the user's constructor call."""
import torch


@torch.compile(backend="eager", fullgraph=True)
def wishart_mean(df, cov):
    dist = torch.distributions.Wishart(df=df, covariance_matrix=cov)
    return dist.mean


print(wishart_mean(torch.tensor(5.0), torch.eye(3)))
