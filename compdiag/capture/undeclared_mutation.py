"""A custom op that mutates an input its schema does not declare (issue 29 §4).

`torch.library.custom_op(..., mutates_args=())` over a function that writes into its argument
is undefined behaviour: Inductor takes the op as pure and may drop or move it (an op returning
None with no declared mutation is dead code to it: pytorch#129372, #187319), so compiled and
eager differ at the op *after* it, where the first divergent node search points. When a graph's
check failed, the graph runs once more in eager, op by op, and each non-ATen op whose schema
declares no mutation has its tensor arguments compared before and after its call: one that
changed an argument is the cause, measured, not guessed. ATen and prims ops are torch's own
and declare their mutations; they are not checked."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx

from compdiag.formats.op_schema import declared_writes

# Namespaces of torch's own ops, whose schemas are right about mutation.
TORCH_NAMESPACES = ("aten", "prims", "inductor", "_c10d_functional", "c10d", "_dtensor",
                    "higher_order", "quantized", "_quantized")


def is_custom_op(target: Any) -> bool:
    """An op with a schema outside torch's own namespaces: a program's or a library's."""
    return getattr(target, "_schema", None) is not None and \
        getattr(target, "namespace", None) not in TORCH_NAMESPACES


def _undeclared_candidate(target: Any) -> bool:
    return is_custom_op(target) and not declared_writes(target._schema)


def find(gm: torch.fx.GraphModule, args: list[Any]) -> torch.fx.Node | None:
    """The first custom op of `gm` that changed a tensor argument without declaring it, run in
    eager on `args` (the caller passes clones and restores RNG state); None when none did."""
    if not any(n.op == "call_function" and _undeclared_candidate(n.target)
               for n in gm.graph.nodes):
        return None
    found: list[torch.fx.Node] = []

    class Watch(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            if found or n.op != "call_function" or not _undeclared_candidate(n.target):
                return super().run_node(n)
            a, kw = self.fetch_args_kwargs_from_env(n)
            tensors = [t for t in list(a) + list(kw.values()) if isinstance(t, torch.Tensor)]
            before = [t.detach().clone() for t in tensors]
            out = super().run_node(n)
            if any(not torch.equal(t.detach(), b) for t, b in zip(tensors, before)):
                found.append(n)
            return out

    with torch.no_grad():
        Watch(gm).run(*args)
    return found[0] if found else None
