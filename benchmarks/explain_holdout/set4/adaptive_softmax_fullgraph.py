"""pytorch/pytorch#194765 ("[torch.compile] AdaptiveLogSoftmaxWithLoss.forward fails on valid inputs
under fullgraph=True", https://github.com/pytorch/pytorch/issues/194765): inside the library's
forward, Dynamo cannot guard on the data-dependent check `row_indices.numel() == 0`; eager
returns the loss, the fullgraph compile fails."""
import torch
from torch import nn

torch.manual_seed(0)
module = nn.AdaptiveLogSoftmaxWithLoss(in_features=8, n_classes=20, cutoffs=[5, 10])
input = torch.randn(4, 8)
target = torch.tensor([1, 2, 3, 4])
print("eager:", module(input, target).loss)
compiled = torch.compile(module, backend="inductor", fullgraph=True)
print("compiled:", compiled(input, target).loss)
