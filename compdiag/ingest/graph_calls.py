"""The calls of Dynamo's output graph and the user line torch noted for each.

A cache bypass names the function it refused (`Unsupported call_function target
<function _enter_autocast ...>`, `autograd_function_apply`) but not where the program calls
it; the graph Dynamo handed the backend says both: each node's code follows a `# File:
PATH:N in FN, code: LINE` comment (or `# No stacktrace found for following nodes`, as torch
writes for an autocast region's enter and exit). Ingest keeps the refused node with its frame,
and the frame of the first node after it that has one (the first op of an autocast region), so
the cache kind points at the user's construct without reading torch's text (issue 29 §1)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from compdiag.formats import lazy_re

_FILE = lazy_re.compile(
    r"^\s*# File: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)$")
# the comment torch writes above a graph's nodes that have no stack of their own
NO_STACK = lazy_re.compile(r"^\s*# No stacktrace found")
_NODE = lazy_re.compile(r"^\s*(?P<name>\w+)(?:\s*:\s*\"[^\"]*\")?\s*=\s*(?P<call>.+)$")
# torch's bypass reason: the refused target, then (on 2.11+) its module and name.
_FUNCTION_NAME = lazy_re.compile(r"Function name:\s*(?P<name>[\w.]+)")
_FUNCTION_MODULE = lazy_re.compile(r"Function module:\s*(?P<module>[\w.]+)")
_TARGET = lazy_re.compile(r"call_function target\s+(?:<function\s+)?(?P<name>[\w.]+)")
# the FX graph cache's: "Can't cache HigherOrderOperator: cond" (any higher-order op's name)
_HOP = lazy_re.compile(r"HigherOrderOperators?:?\s+(?P<name>[\w.]+)")


def refused_target(reason: str | None) -> str | None:
    """The function a bypass reason says the cache refused (`_enter_autocast`,
    `autograd_function_apply`, a higher-order op's `cond`), or None."""
    m = (_FUNCTION_NAME.search(reason or "") or _TARGET.search(reason or "")
         or _HOP.search(reason or ""))
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
        if NO_STACK.match(raw):
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
    # Dynamo names a global function of module M in its graph `M_NAME` (dots as underscores:
    # `__main___patchify(l_img_, 4)` for __main__.patchify, an allow_in_graph helper)
    m = _FUNCTION_MODULE.search(reason or "")
    prefix = "(?:%s_)?" % re.escape(m.group("module").replace(".", "_")) if m else ""
    pattern = re.compile(r"(?<![\w])%s%s\s*\(" % (prefix, re.escape(target)))
    for i, node in enumerate(calls):
        if pattern.search(node["call"]):
            after = next((c["frame"] for c in calls[i + 1:] if c["frame"]), None)
            return {"target": target, "name": node["name"], "call": node["call"],
                    "module": m.group("module") if m else None,
                    "frame": node["frame"], "after": after,
                    "with": enclosing_with(node["frame"] or after)}
    return None


_CALLEE = lazy_re.compile(r"([A-Za-z_]\w*)\s*\(")


def called_frame(calls: list[dict[str, Any]], code: str | None) -> dict[str, Any] | None:
    """The user frame of the graph's first node that calls what a line of torch's own code
    calls (`return F.layer_norm(` in nn/modules/normalization.py: the node
    `torch.nn.functional.layer_norm(...)`, at the program's `self.norm(...)`); None when no
    node with a frame calls it."""
    m = _CALLEE.search(code or "")
    if not m:
        return None
    pattern = re.compile(r"(?<![\w])%s\s*\(" % re.escape(m.group(1)))
    return next((c["frame"] for c in calls if c["frame"] and pattern.search(c["call"])), None)


def enclosing_with(frame: dict[str, Any] | None) -> dict[str, Any] | None:
    """The innermost `with` statement of the frame's file that encloses its line ({filename,
    lineno, line}, the statement's first line): the region a refused enter node opens (torch
    notes no line for `_enter_autocast` itself, only for the region's first op). Read from the
    user's source here, at ingest, so the kinds read a stored fact."""
    if not frame or not frame.get("filename") or not frame.get("lineno"):
        return None
    try:
        source = Path(frame["filename"]).read_text(errors="replace")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None
    at, best = int(frame["lineno"]), None
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and \
                node.lineno <= at <= (node.end_lineno or node.lineno) and \
                (best is None or node.lineno > best.lineno):
            best = node
    if best is None:
        return None
    lines = source.splitlines()
    return {"filename": frame["filename"], "lineno": best.lineno,
            "line": lines[best.lineno - 1].strip() if best.lineno <= len(lines) else None}



# -- a failure inside the Dynamo graph's own generated code (issue 29 §1) -----------------------
# Where a backend runs the Dynamo graph's own Python code (eager), an exception in it leaves
# the generated line in the traceback torch.fx prints (`File "<eval_with_key>.N", line L, in
# forward` and the line, `z = y.index_select(0, l_idx_);  y = l_idx_ = None`): that line is
# one node of the graph, with its name and its code.
_GENERATED = lazy_re.compile(r'^\s*File "(?P<module><eval_with_key>\.\d+)", line \d+, in forward\n'
                             r'\s*(?P<name>\w+)(?:\s*:\s*"[^"]*")?\s*=\s*(?P<call>.+?)\s*$', re.M)


def generated_node(text: str | None, graphs: dict[str | None, list[dict[str, Any]]]
                   ) -> dict[str, Any] | None:
    """The node of a Dynamo graph whose generated line the innermost FX-module frame of
    `text` (a traceback, the end of stderr) names, by its name and code, the latest
    compile's first: {kernel (the FX module), compile_id, frame}; None when none holds it."""
    found = list(_GENERATED.finditer(text or ""))
    if not found:
        return None
    m = found[-1]
    for cid, calls in reversed(list(graphs.items())):
        for c in calls:
            if c["name"] == m.group("name") and c["call"] == m.group("call")[:300] \
                    and c["frame"]:
                return {"kernel": m.group("module"), "compile_id": cid, "frame": c["frame"]}
    return None


def dynamo_node_rows(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """graph_calls' nodes as dynamo_nodes rows (store/schema.py)."""
    return [{"node": c["name"], "call": c["call"],
             **{k: (c["frame"] or {}).get(k) for k in ("filename", "lineno", "line")}}
            for c in calls]
