"""Op-count profiling with a TorchDispatchMode around a compiled model.

Source: pytorch/pytorch#163013 ("Compiled HOPS skip compilation when run under a custom
DispatchMode") and #164143 ("DebugMode silently disables torch.compile"): while a
non-infra TorchDispatchMode is active, Dynamo skips every frame ("non-infra torch
dispatch mode present, this is not supported today in torch.compile"), so the
"compiled" model silently runs eagerly. Fix: give the mode
`ignore_compile_internals()` returning True (or profile outside the compiled call).
"""
import collections

import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode

torch.manual_seed(0)


class OpCounter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func.overloadpacket)] += 1
        return func(*args, **(kwargs or {}))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.GELU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.GELU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def forward(self, x):
        return self.body(x)


def main():
    model = ConvNet().eval()
    cmodel = torch.compile(model)
    x = torch.randn(8, 3, 32, 32)
    counter = OpCounter()
    with torch.no_grad(), counter:
        for _ in range(3):
            logits = cmodel(x)
    top = sorted(counter.counts.items())[:4]
    print("ops seen:", sum(counter.counts.values()))
    print("top:", top)
    print("logits sum:", round(logits.sum().item(), 4))


if __name__ == "__main__":
    main()
