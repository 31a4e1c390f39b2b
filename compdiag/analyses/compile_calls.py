"""The program's `torch.compile(...)` calls, for a recompile on the backend (issue 29 §1, the
line the user must change). Capture keeps each call of the user's with its line
(capture/config_sets.py, `compile_call`). A BACKEND_MATCH guard fails when a function compiled
under one backend callable is called under another: a backend made anew at every
`torch.compile` of one line (a per-block factory, pytorch/pytorch#168373) gives every module
of one class its own backend, and the class's `forward`, one code object with one cache,
recompiles for each up to the limit (probes44a regional_blocks_fresh_backend_recompile:
shown at the block's call, with the factory's line nowhere)."""

from __future__ import annotations

from collections import Counter
from typing import Any

SUFFIX = "; torch.compile called {n} times at line {lineno} (`{line}`), each with its backend"
EXPLANATION = ("Line {lineno} calls torch.compile {n} times, and torch compares backends by "
               "identity: each call's backend is another callable, so code compiled under one "
               "is compiled again under the next. Modules of one class share their `forward`'s "
               "code, and with it one cache and one recompile limit.")
FIX = ("Make the backend once, before line {lineno} (`backend = make_backend()`, or one "
       "`functools.partial` of it), and pass that same object to every torch.compile call; "
       "to count per block, key the counts by the graph, not by a backend per block.")


def repeated_compile(ctx: Any) -> dict[str, Any] | None:
    """The user line that called torch.compile most often, twice at least: {filename, lineno,
    line, n}; None where no line did."""
    lines: Counter = Counter()
    seen: dict[tuple, dict[str, Any]] = {}
    for data, call in ctx.recorded_calls("compile_call"):
        if data.get("key") == "compile" and call.get("lineno"):
            key = (call.get("filename"), call["lineno"])
            lines[key] += 1
            seen.setdefault(key, call)
    if not lines:
        return None
    key, n = lines.most_common(1)[0]
    return {**seen[key], "n": n} if n >= 2 else None


def backend_words(ctx: Any, call: dict[str, Any]) -> tuple[Any, str, str, str]:
    """(frame, suffix, explanation, fix) of a backend recompile at a repeated compile line."""
    words = dict(n=call["n"], lineno=call["lineno"], line=(call.get("line") or "").strip()[:80])
    frame = ctx.frame(call.get("filename"), call["lineno"], call.get("line"), "call")
    return frame, SUFFIX.format(**words), EXPLANATION.format(**words), FIX.format(**words)
