"""Graph break: a C-extension function Dynamo will not trace (zlib.crc32)."""
import zlib

import torch


def salted(x, tag):
    salt = zlib.crc32(tag) % 7  # <- diagnosis
    return x + salt


torch.compile(salted, backend="eager")(torch.randn(8), b"layer1")
print("ok")
