"""The functions a program marked allow_in_graph, from the facts capture stored
(capture/config_sets.py: one `compdiag:allow_in_graph` record per marking, with the
function's file, its line span and the marking line).

Two kinds read them: `allow_in_graph` (a marked function that could not run untraced) and
`cache` (AOTAutograd's cache refuses any graph that calls a function of the user's untraced,
probes42f allow_in_graph_aot_cache_bypass: the bypass was said at the compiled call as
information, where the marking is the line to change)."""

from __future__ import annotations

from typing import Any

RECORD = "compdiag:allow_in_graph"


def marked(ctx: Any) -> list[dict[str, Any]]:
    """Each marking the run recorded: {function, name, filename, first, last, call}."""
    out = []
    for rec in ctx.r.records(ctx.run_id, kind=RECORD, with_payload=False):
        data = (rec.get("metadata") or {}).get("compdiag") or {}
        if isinstance(data.get("first"), int) and isinstance(data.get("last"), int) \
                and data.get("filename") and data.get("name"):
            out.append(data)
    return out


def by_name(ctx: Any) -> dict[str, dict[str, Any]]:
    """The run's markings by the function's __name__ (the first of each), read once for a
    pass over many facts (each cache bypass)."""
    out: dict[str, dict[str, Any]] = {}
    for m in marked(ctx):
        out.setdefault(m["name"], m)
    return out
