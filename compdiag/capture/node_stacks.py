"""The user's part of each FX node's stack, where torch's graph texts cut it (issue 29 §1).

The post-grad graph torch logs names only a node's innermost frame (`# File: …gamma.py:15 in
_standard_gamma`): for an op reached through library code (torch.distributions, a
torch.nn.functional wrapper, nn.Module's forward, a helper installed in site-packages) that
frame is the library's, and the user line that called into the library is lost. The Dynamo
graph handed to the backend still has each node's whole stack (`node.meta["stack_trace"]`),
on a warm run too (Dynamo traces again; only Inductor's work is cached).

So capture keeps, for each distinct stack whose innermost frame is not the user's, torch's
own text of the frames from that innermost one outwards to the first user frame (the part
the graph text dropped), and nothing for a node whose innermost frame is already the user's.
Ingest parses it and joins it to the post-grad nodes by their innermost frame
(ingest/own_records.py). Reads only; compiles nothing; a fault is a run warning."""

from __future__ import annotations

import json
import re
from typing import Any

from compdiag.capture.compile_context import current_compile_id
from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

# A frame header of a traceback-like stack trace (the code line follows it).
_FRAME = lazy_re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+', re.M)


def install(capture: Any) -> None:
    from compdiag.capture.backend_hook import hook_backend_call

    def keep(gm: Any) -> None:
        capture.guarded("node stacks", _record, capture, gm)
        return None  # nothing kept: the backend compiles the graph as it would

    hook_backend_call(lambda: bool(capture.paused_depth), lambda kept, c, fn: c, keep=keep)


def cut_part(stack_trace: str | None) -> str | None:
    """The text of `stack_trace` from its first user frame seen from the innermost end,
    through its innermost frame; None when the innermost frame is the user's (the graph text
    already names it) or no frame is."""
    if not stack_trace:
        return None
    starts = [(m.start(), m.group("file")) for m in _FRAME.finditer(stack_trace)]
    if not starts or is_user_file(starts[-1][1]):
        return None
    for at, filename in reversed(starts[:-1]):
        if is_user_file(filename):
            return stack_trace[at:].strip("\n")
    return None


def _record(capture: Any, gm: Any) -> None:
    seen: dict[str, str | None] = {}  # stack trace -> its cut part (None: nothing cut)
    stacks: dict[str, list[str]] = {}  # cut part -> its nodes
    for module in gm.modules():
        graph = getattr(module, "graph", None)
        for node in getattr(graph, "nodes", ()):
            if node.op not in ("call_function", "call_method"):  # x.t(), x.matmul(y)
                continue
            trace = node.meta.get("stack_trace")
            if not isinstance(trace, str):
                continue
            if trace not in seen:
                seen[trace] = cut_part(trace)
            part = seen[trace]
            if part is not None:
                stacks.setdefault(part, []).append(node.name)
    if stacks:
        # a few node names to read it by (a model's layers share a stack by the hundred)
        capture.ing.event("node_stacks", current_compile_id(), {}, payload=json.dumps(
            [{"stack": part, "nodes": nodes[:3], "count": len(nodes)}
             for part, nodes in stacks.items()]))
