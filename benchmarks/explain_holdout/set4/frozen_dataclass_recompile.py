"""pytorch/pytorch#138226 ("No guards for frozen dataclasses and readonly configs",
https://github.com/pytorch/pytorch/issues/138226): Dynamo guards on the field of a frozen
dataclass argument (`L['dc'].x == 0`), so a config object with another value recompiles."""
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class MyDC:
    x: int


@torch.compile(fullgraph=True, backend="eager")
def func(dc: MyDC, t):
    return dc.x + t


func(MyDC(0), torch.randn(()))
func(MyDC(1), torch.randn(()))
print("graphs:", torch._dynamo.utils.counters["stats"]["unique_graphs"])
