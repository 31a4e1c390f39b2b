"""pytorch/pytorch#187027 ("flip after repeat_interleave generates negative (out-of-bounds)
index under dynamic shapes", https://github.com/pytorch/pytorch/issues/187027): compiled with
dynamic=True, flip after repeat_interleave indexes the input with a negative offset and reads
past it, so the result is garbage where eager (and a static compile) is right. Written as a
decoder that doubles a feature map's samples and reverses them; the program prints both results
and does not compare them.
"""
import torch


def upsample_reversed(x):
    doubled = torch.repeat_interleave((x + 1).flatten(), 2)
    return doubled.flip(0)


torch.manual_seed(0)
x = torch.randn(8, 8)
print("eager   ", upsample_reversed(x)[:6])
print("compiled", torch.compile(upsample_reversed, dynamic=True)(x)[:6])
