"""pytorch/pytorch#165751 ("`torch.distribution.Gamma` sampling forces a `torch.compile` graph
break with dynamic shapes", https://github.com/pytorch/pytorch/issues/165751): with dynamic=True
and fullgraph=True, Gamma.sample has no fake/meta kernel for its dynamic size and the compile
fails inside torch.distributions, called from the user's sample line."""
import torch


def f(n: int = 5) -> torch.Tensor:
    distribution = torch.distributions.Gamma(
        concentration=torch.tensor(2.0),
        rate=torch.tensor(1.0),
    )
    return distribution.sample((n,))


print(f())
fc = torch.compile(f, dynamic=True, fullgraph=True)
print(fc())
