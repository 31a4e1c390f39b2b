"""Compiled autograd's graphs as compiles of their own: each graph (one compiled-autograd
cache miss), the Dynamo compiles of it (`!N/...`) and why it was made, read off what differs
from the graph before it (torch names the reason only in its C++ verbose log: a new autograd
node, or changed tensor shapes)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from compdiag.formats.compile_id import CompileId
from compdiag.formats.words import plural
from compdiag.store.reader import Reader


def ca_id(compile_id: str | None) -> int | None:
    """N of a compiled-autograd compile id `!N/F/C`; None for any other."""
    cid = CompileId.of(compile_id)
    return cid.compiled_autograd if cid is not None else None


def why(prev: dict[str, Any] | None, graph: dict[str, Any]) -> str:
    if prev is None:
        return "the first backward compiled autograd saw"
    before, after = Counter(prev["nodes"]), Counter(graph["nodes"])
    new, gone = after - before, before - after
    parts = []
    if new or gone:
        words = [f"new {', '.join(sorted(new))}" if new else "",
                 f"no longer {', '.join(sorted(gone))}" if gone else ""]
        parts.append("different autograd nodes: " + "; ".join(w for w in words if w))
    if (graph["dynamic_sizes"] or 0) > (prev["dynamic_sizes"] or 0):
        parts.append(f"changed tensor shapes ({plural(graph['dynamic_sizes'], 'size')} now "
                     "dynamic)")
    if not parts and graph["inputs"] != prev["inputs"]:
        parts.append(f"the same autograd nodes with other inputs ({prev['inputs']} -> "
                     f"{graph['inputs']} inputs)")
    return "; ".join(parts) or "a cache miss the graphs do not explain"


def graphs(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """[{ca_id, compile_ids, nodes, inputs, dynamic_sizes, reason}], in the order made."""
    cids: dict[int, list[str]] = {}
    for c in reader.compiles(run_id):
        n = ca_id(c["compile_id"])
        if n is not None:
            cids.setdefault(n, []).append(c["compile_id"])
    out, prev = [], None
    for g in reader.compiled_autograd_graphs(run_id):
        out.append({"ca_id": g["ca_id"], "compile_ids": cids.get(g["ca_id"], []),
                    "nodes": len(g["nodes"]), "inputs": g["inputs"],
                    "dynamic_sizes": g["dynamic_sizes"], "reason": why(prev, g)})
        prev = g
    return out
