"""A Python loop Dynamo unrolled into one graph until compiling it is the run's cost.

Dynamo runs a Python loop while it traces and records every iteration's ops: the graph grows
with the trip count, and Inductor's compile time with it (faster than linearly). The evidence
is Dynamo's own graph: one op of one user line traced many times over (the nodes' user lines,
store table dynamo_nodes), that line inside a `for`/`while` of the compiled function, and the
compile's time (said, not required: a cache can serve a compile that cost a minute cold).
probes33d soft_dtw_unrolled: an 8x8 soft-DTW recurrence, 1,344 nodes from
two lines, 46 s of compile in a 64 s run (7 s without Dynamo), and explain said "no problems
found"."""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any

from compdiag.formats.user_code import is_user_file

# one op of one line traced this often in a graph: the loop ran that many times in the trace
# (a loop over a model's layers runs a few dozen times by design: more than that, or a loop
# inside a loop, is a trip count that grows with the data)
UNROLLED, NESTED_UNROLLED = 48, 16
_REPEAT = re.compile(r"_\d+$")
# a problem only where it costs: a graph this large
BIG_GRAPH = 200

WORDS = ("the Python loop at line {loop} is unrolled into the graph: line {line} is traced "
         "{repeats} times ({nodes} graph nodes; this run's compile took {seconds:.1f} s)")
EXPLANATION = (
    "Dynamo runs a Python loop while tracing and records the ops of every iteration, so the "
    "graph grows with the trip count ({repeats} here) and Inductor's compile time grows "
    "faster than that; the compiled code runs the loop body {repeats} times over, with no "
    "reuse of one iteration's kernel for the next.")
FIX = ("Write the loop's work as tensor ops over all iterations at once (a mask, `cumsum`/"
       "`cumprod`, a recurrence along anti-diagonals), or move the loop out of the compiled "
       "function and compile its body, one small graph reused every iteration; keep the "
       "trip count small where neither is possible.")


def _loops(text: str | None, span: tuple[int, int]) -> list[tuple[int, int]]:
    """(first, last) line of each `for`/`while` loop inside SPAN, outermost first."""
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return []
    return sorted((node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree)
                  if isinstance(node, (ast.For, ast.While, ast.AsyncFor))
                  and span[0] <= node.lineno <= span[1])


def unrolled_loops(ctx: Any) -> list[dict[str, Any]]:
    """{compile_id, filename, loop, line, repeats, nodes, seconds} of each compile whose graph
    unrolled a Python loop of the compiled function into a large, slow compile."""
    out = []
    for cid, row in ctx.compiles.items():
        seconds = float(((row.get("stage_times") or {}).get("total")) or 0.0)
        nodes = ctx.r.dynamo_nodes(ctx.run_id, cid)
        if len(nodes) < BIG_GRAPH:
            continue
        # the op a node is (FX names its repeats `neg`, `neg_1`, `neg_2`, ...)
        ops = Counter((n.get("filename"), n.get("lineno"), _REPEAT.sub("", n.get("node") or ""))
                      for n in nodes
                      if n.get("lineno") and is_user_file(ctx.resolve(n.get("filename"))))
        # the trip count a line shows: the most frequent of its ops' counts (an op written
        # twice on the line, `-k * x - c * v`, counts twice per iteration)
        per_line: dict[tuple, Counter] = {}
        for (filename, lineno, _), k in ops.items():
            per_line.setdefault((filename, lineno), Counter())[k] += 1
        lines = Counter({key: min(c, key=lambda k: (-c[k], k)) for key, c in per_line.items()})
        d, span = ctx.def_frame(cid), ctx.def_span(cid)
        every = _loops(ctx.source_text(d.filename), span) if span else []
        for (filename, lineno), repeats in lines.most_common():
            if repeats < NESTED_UNROLLED or ctx.resolve(filename) != d.filename:
                continue
            loops = [first for first, last in every if first < lineno <= last]
            if loops and repeats >= (NESTED_UNROLLED if len(loops) > 1 else UNROLLED):
                out.append({"compile_id": cid, "filename": d.filename, "loop": loops[-1],
                            "line": lineno, "repeats": repeats, "nodes": len(nodes),
                            "seconds": seconds})
                break
    return out
