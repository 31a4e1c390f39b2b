"""pytorch/pytorch#187018 ("abs on uint8 silently miscompiled via std::abs integer promotion",
https://github.com/pytorch/pytorch/issues/187018, closed): -x.abs() on uint8 flowing through
cat and sum: the compiled result is -800 where eager's (uint8 wrap-around) is 224.
"""
import torch


def checksum(x):
    y = -x.abs()
    return torch.cat([y, y]).sum()


x = torch.tensor([200, 200], dtype=torch.uint8)
print("eager   ", checksum(x).item())
print("compiled", torch.compile(checksum)(x).item())
