"""Which of an FX node's arguments the node writes in place, for the accuracy localiser: an op
that returns nothing and mutates its inputs (a custom op with `mutates_args`, `add_`, a
`setitem`) computes its result into them, so the value to compare after it is theirs; and
whether a node is a copy (`clone`) whose dropping makes an op read the buffer it writes
(Inductor's reinplacing of a custom op's copied input, pytorch#198031)."""

from __future__ import annotations

import operator
from typing import Any

import torch

from compdiag.formats.op_schema import declared_writes

COPY_OPS = ("clone", "contiguous", "copy")


def _schema(target: Any) -> Any:
    """The op's schema: an OpOverload's own, an OpOverloadPacket's default overload's."""
    schema = getattr(target, "_schema", None)
    if schema is None and isinstance(target, torch._ops.OpOverloadPacket):
        schema = getattr(getattr(target, "default", None), "_schema", None)
    return schema


def written(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The argument nodes `node` writes in place (a mutable schema argument, the self of an
    in-place method or of a setitem), each once, in argument order."""
    out: list[Any] = []
    if node.op == "call_function" and node.target is operator.setitem:
        out = [node.args[0]] if node.args else []
    elif node.op == "call_method" and isinstance(node.target, str) and \
            node.target.endswith("_") and not node.target.startswith("_"):
        out = [node.args[0]] if node.args else []
    elif node.op == "call_function":
        schema = _schema(node.target)
        for i in declared_writes(schema):
            out.append(node.args[i] if i < len(node.args)
                       else node.kwargs.get(schema.arguments[i].name))
    return list(dict.fromkeys(n for n in out if isinstance(n, torch.fx.Node)))


def is_copy(node: torch.fx.Node) -> bool:
    """A node that makes a copy of its first argument (`x.clone()`, `torch.clone(x)`)."""
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    return str(name).split(".")[0] in COPY_OPS and bool(node.args) and \
        isinstance(node.args[0], torch.fx.Node)


def dropped_copy(op: torch.fx.Node, copy: torch.fx.Node) -> bool:
    """`op` reads `copy`, a copy of a tensor `op` writes: compiled code that drops the copy
    (reinplacing) makes `op` read the buffer it is writing."""
    return is_copy(copy) and copy in op.all_input_nodes and copy.args[0] in written(op)
