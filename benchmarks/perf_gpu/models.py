"""The seed examples of the perf mode table, built the same way by the program `compdiag perf`
runs (seed.py) and by the plain timing it is checked against (plain_timing.py).

Random weights, no download: timm's resnet50 and transformers' BertModel(BertConfig()).
`tiny` (an MLP) needs neither library and exists so the driver can be tried on a CPU."""

from __future__ import annotations

from typing import Any, Callable

import torch

NAMES = ("resnet50", "bert", "tiny")


def build(name: str, device: str, batch: int) -> tuple[torch.nn.Module, Callable[[], Any]]:
    """(model in eval mode on device, a function that calls a model on the fixed inputs)."""
    torch.manual_seed(0)
    if name == "resnet50":
        import timm

        model = timm.create_model("resnet50", pretrained=False).to(device).eval()
        x = torch.randn(batch, 3, 224, 224, device=device)
        return model, lambda m: m(x)
    if name == "bert":
        from transformers import BertConfig, BertModel

        model = BertModel(BertConfig()).to(device).eval()
        ids = torch.randint(0, 30000, (batch, 128), device=device)
        mask = torch.ones_like(ids)
        return model, lambda m: m(input_ids=ids, attention_mask=mask).last_hidden_state
    if name == "tiny":
        model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(256, 256),
                                                                    torch.nn.GELU())])
        model = model.to(device).eval()
        x = torch.randn(batch, 256, device=device)
        return model, lambda m: m(x)
    raise SystemExit(f"unknown model {name!r}: one of {', '.join(NAMES)}")
