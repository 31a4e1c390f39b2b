"""Graph break (library): probes46a bn_cumavg_momentum_none. A BatchNorm built with
`momentum=None` (a cumulative moving average) computes `1.0 / float(num_batches_tracked)` in
every training forward, a Python number read off a tensor: the graph breaks inside torch's
batchnorm.py at the module call. The caller's argument chose that path; a numeric momentum
removes the break (torch's `capture_scalar_outputs` hint does not)."""
import torch
import torch.nn as nn

net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8, momentum=None), nn.ReLU())
step = torch.compile(net)
for _ in range(2):
    out = step(torch.randn(4, 3, 8, 8))  # <- diagnosis
print(out.shape)
