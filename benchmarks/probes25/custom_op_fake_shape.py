"""A custom CPU op (packed pair features) registered with torch.library.custom_op; its fake
implementation returns the input's shape, but the real kernel concatenates neighbours and
doubles the last dimension. Eager is fine; the compiled model fails at its first call
(pytorch#143579, #184549: assert_size_stride from a wrong fake kernel)."""
import torch
import torch.nn as nn


@torch.library.custom_op("probes25::pair_features", mutates_args=())
def pair_features(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, torch.roll(x, 1, dims=0)], dim=-1)


@pair_features.register_fake
def _(x):
    return torch.empty_like(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        h = torch.tanh(self.proj(x))
        p = pair_features(h)
        return self.out(p[:, :16] * p[:, -16:])  # own and neighbour halves


torch.manual_seed(0)
head = Head().eval()
x = torch.randn(8, 16)
chead = torch.compile(head)
with torch.no_grad():
    print("eager", head(x).shape)
    print("compiled", chead(x).shape)
