"""A custom op whose fake (register_fake) describes another output than its kernel returns
(issue 29 §4).

Dynamo and Inductor plan a custom op's output from its fake implementation: its dtype, shape
and strides. A kernel that returns something else (a NumPy kernel computing in float64 behind
a fake that says `empty_like(x)`, float32) runs fine in eager, where each op sees the real
tensor, while the compiled code reads the kernel's output as the fake described it: silently
wrong numbers, at the ops after it (probes27 cop_fake_dtype: "computed wrongly by smooth,
fused into add", a compiler bug to bisect). When a graph's check failed, the graph runs once
more in eager, op by op, and each custom op's real output is held against the fake value the
graph recorded for it (`meta["example_value"]`): the first that differs in dtype or shape is
the cause, measured, not guessed. torch's own ops are not checked."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch.utils import _pytree as pytree

from compdiag.capture.undeclared_mutation import is_custom_op


def _said(t: Any) -> str:
    return f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}"


def find(gm: torch.fx.GraphModule, args: list[Any]) -> tuple[torch.fx.Node, str, str] | None:
    """(node, what its fake said, what its kernel returned) of the first custom op of `gm`
    whose real output differs from its recorded fake in dtype or shape, run in eager on `args`
    (the caller passes clones and restores RNG state); None when none does."""
    if not any(n.op == "call_function" and is_custom_op(n.target) for n in gm.graph.nodes):
        return None
    found: list[tuple[torch.fx.Node, str, str]] = []

    class Watch(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            out = super().run_node(n)
            if found or n.op != "call_function" or not is_custom_op(n.target):
                return out
            fake = n.meta.get("example_value", n.meta.get("val"))
            for f, r in zip(pytree.tree_leaves(fake), pytree.tree_leaves(out)):
                if isinstance(f, torch.Tensor) and isinstance(r, torch.Tensor) and (
                        f.dtype != r.dtype or tuple(f.shape) != tuple(r.shape)):
                    found.append((n, _said(f), _said(r)))
                    break
            return out

    with torch.no_grad():
        Watch(gm).run(*args)
    return found[0] if found else None
