"""A process-wide setting the program changes inside compiled code, which compiled code never
applies (probes36d compiled_eval_determinism_dropped: `torch.use_deterministic_algorithms(True)`
as the first line of a compiled evaluation routine; afterwards the process still had
deterministic algorithms off, eager code included, with no break, recompile or warning).

Dynamo writes the call into its graph and applies it while it traces, then puts the setting
back as it was before the compile (convert_frame restores the grad mode, deterministic
algorithms, the default dtype and the random state); AOTAutograd and Inductor trace the graph
again and keep only its tensor operations, so the compiled code never makes the call. Read
from the Dynamo graph's nodes (a call of a setter in SETTERS) of a compile that went through
AOTAutograd or Inductor (an eager backend runs the graph's node, and applies it); the line is
the setter's call in the compiled function's kept source."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.compiled_source import compiled_defs
from compdiag.analyses.global_state_words import SETTINGS, Setting
from compdiag.analyses.locate import source_line, source_matches

# the setter's node in Dynamo's graph -> the setting
SETTERS = {s.node: s for s in SETTINGS if s.node}
_ARGUMENT = re.compile(r"\(([^,)]*)")
_SUFFIX = re.compile(r"_\d+$")  # a node name's count (`_set_deterministic_algorithms_1`)


def settings_in_graph(ctx: Any) -> list[dict[str, Any]]:
    """{call, value, cid, frame, outside} of each setter call in a compiled graph, once per
    line; `outside`: the program makes the same call outside compiled code too (nothing is
    lost then)."""
    out: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for cid in ctx.compiles:
        nodes = [(n, _SUFFIX.sub("", str(n.get("node") or ""))) for n in ctx.dynamo_nodes(cid)]
        nodes = [(n, SETTERS[name]) for n, name in nodes if name in SETTERS]
        if not nodes or not _lowered(ctx, cid):
            continue
        for n, setting in nodes:
            value = _ARGUMENT.search(n.get("call") or "")
            frame = ctx.frame(n["filename"], n["lineno"], n.get("line"), evidence="fx_node") \
                if n.get("filename") and n.get("lineno") else source_line(
                    ctx, cid, setting.setter, after=ctx.code_row(cid))
            key = (setting.call, frame.filename if frame else None,
                   frame.lineno if frame else None)
            if key in seen:
                continue
            seen.add(key)
            out.append({"call": setting.call, "cid": cid, "frame": frame,
                        "value": value.group(1).strip() if value else "",
                        "outside": _outside(ctx, cid, setting)})
    return out


def _lowered(ctx: Any, cid: str) -> bool:
    """Whether AOTAutograd or Inductor compiled the graph (a post-grad graph, or a lookup of
    their caches), not an eager backend that runs Dynamo's graph as it is."""
    return bool(ctx.graph_nodes(cid)) or any(
        e.get("cache") in ("fx_graph", "aotautograd") for e in ctx.r.cache_events(ctx.run_id, cid))


def _outside(ctx: Any, cid: str, setting: Setting) -> bool:
    """Whether the program calls the setter at a line outside the compiled function's def."""
    spans = [(fn.lineno, fn.end_lineno or fn.lineno, path)
             for fn, _tree, path in compiled_defs(ctx, [cid])]
    return any(not any(path == f.filename and a <= (f.lineno or 0) <= b for a, b, path in spans)
               for f in source_matches(ctx, cid, setting.setter))
