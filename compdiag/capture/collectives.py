"""Collectives traced into a compiled graph (functional collectives, `all_reduce` inside a
torch.compile'd region), each with the user's line that issued it.

torch's post-grad graph notes only the innermost frame of a node (the line inside
torch/distributed/_functional_collectives.py), so a divergence between ranks could not point
at the user's call. The Dynamo graph handed to the backend still has each node's whole stack
(`node.meta["stack_trace"]`): capture reads the collectives off it, before the backend runs,
and compiles nothing itself (fail-open: a fault is a run warning)."""

from __future__ import annotations

import json
from typing import Any

from compdiag.capture.compile_context import current_compile_id
from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

# The namespaces of collective ops in a Dynamo or post-grad graph (waits are not collectives).
COLLECTIVE_MARKERS = ("_c10d_functional.", "c10d_functional.", "c10d.", "_dtensor.")
NOT_COLLECTIVES = ("wait_tensor",)
_FRAME = lazy_re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n\s*(?P<code>[^\n]*)')


def install(capture: Any) -> None:
    from compdiag.capture.backend_hook import hook_backend_call

    def keep(gm: Any) -> None:
        capture.guarded("collectives", _record, capture, gm)
        return None  # nothing kept: the backend compiles the graph as it would

    hook_backend_call(lambda: bool(capture.paused_depth), lambda kept, c, fn: c, keep=keep)


def is_collective(target: str) -> bool:
    return any(m in target for m in COLLECTIVE_MARKERS) and \
        not any(w in target for w in NOT_COLLECTIVES)


def user_line(stack_trace: str | None) -> dict[str, Any]:
    """The innermost user frame of an FX node's stack trace."""
    found: dict[str, Any] = {}
    for m in _FRAME.finditer(stack_trace or ""):
        if is_user_file(m.group("file")):
            found = {"filename": m.group("file"), "lineno": int(m.group("line")),
                     "line": m.group("code").strip() or None}
    return found


def _record(capture: Any, gm: Any) -> None:
    nodes = []
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        target = str(node.target)
        if not is_collective(target):
            continue
        val = node.meta.get("example_value")
        meta = f"{str(val.dtype).replace('torch.', '')}{list(val.shape)}" \
            if hasattr(val, "shape") and hasattr(val, "dtype") else None
        nodes.append({"node": node.name, "target": target, "meta": meta,
                      **user_line(node.meta.get("stack_trace"))})
    if nodes:
        capture.ing.event("collective_nodes", current_compile_id(), {},
                          payload=json.dumps(nodes, default=repr))
