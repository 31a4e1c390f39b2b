"""The calls of Dynamo's output graph and the user line torch noted for each.

A cache bypass names the function it refused (`Unsupported call_function target
<function _enter_autocast ...>`, `autograd_function_apply`) but not where the program calls
it; the graph Dynamo handed the backend says both: each node's code follows a `# File:
PATH:N in FN, code: LINE` comment (or `# No stacktrace found for following nodes`, as torch
writes for an autocast region's enter and exit). Ingest keeps the refused node with its frame,
and the frame of the first node after it that has one (the first op of an autocast region), so
the cache kind points at the user's construct without reading torch's text (issue 29 §1)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats import lazy_re

_FILE = lazy_re.compile(
    r"^\s*# File: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)$")
_NO_STACK = lazy_re.compile(r"^\s*# No stacktrace found")
_NODE = lazy_re.compile(r"^\s*(?P<name>\w+)(?:\s*:\s*\"[^\"]*\")?\s*=\s*(?P<call>.+)$")
# torch's bypass reason: the refused target, then (on 2.11+) its module and name.
_FUNCTION_NAME = lazy_re.compile(r"Function name:\s*(?P<name>[\w.]+)")
_TARGET = lazy_re.compile(r"call_function target\s+(?:<function\s+)?(?P<name>[\w.]+)")


def refused_target(reason: str | None) -> str | None:
    """The function a bypass reason says the cache refused (`_enter_autocast`,
    `autograd_function_apply`), or None."""
    m = _FUNCTION_NAME.search(reason or "") or _TARGET.search(reason or "")
    return m.group("name").rsplit(".", 1)[-1] if m else None


def graph_calls(payload: str | None) -> list[dict[str, Any]]:
    """The top-level graph's nodes in order: {name, call, frame}; frame is {filename, lineno,
    fn, line} or None where torch noted no stack."""
    out: list[dict[str, Any]] = []
    frame: dict[str, Any] | None = None
    for raw in (payload or "").splitlines():
        if raw.lstrip().startswith("class ") and out:
            break  # a nested GraphModule (a higher-order op's body) follows the top graph
        m = _FILE.match(raw)
        if m:
            frame = {"filename": m.group("file"), "lineno": int(m.group("line")),
                     "fn": m.group("fn").strip(), "line": m.group("code").strip()}
            continue
        if _NO_STACK.match(raw):
            frame = None
            continue
        n = _NODE.match(raw)
        if n:
            out.append({"name": n.group("name"), "call": n.group("call").strip()[:300],
                        "frame": frame})
    return out


def refused_node(calls: list[dict[str, Any]], reason: str | None) -> dict[str, Any] | None:
    """The node a bypass reason refused, with its frame and `after`: the frame of the first
    later node that has one (None when there is none)."""
    target = refused_target(reason)
    if not target:
        return None
    pattern = re.compile(r"(?<![\w])%s\s*\(" % re.escape(target))
    for i, node in enumerate(calls):
        if pattern.search(node["call"]):
            after = next((c["frame"] for c in calls[i + 1:] if c["frame"]), None)
            return {"target": target, "name": node["name"], "call": node["call"],
                    "frame": node["frame"], "after": after}
    return None
