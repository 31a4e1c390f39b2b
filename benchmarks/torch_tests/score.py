"""A diagnosis held against what a test expects: right, or why not, and the class of a miss.

The checks are the test's own: the kind (a raised compile error is a `failure`, a logged
graph break a `graph_break`, a guard text a `recompile`), the GB code, the first line of
torch's message, the user line the message names (by its source text: PyTorch's tests munge
line numbers to N), the guard text. A graph count or a cache counter is held against
`show --json` instead."""

from __future__ import annotations

import os
import re
from typing import Any

from derive import Expectation

DIAGNOSIS_KINDS = ("graph_break", "failure", "recompile")


def _norm(text: str) -> str:
    """Lower case, `_` as a space: `recompile_limit` (torch's config name) reads as
    "recompile limit" (a diagnosis' words)."""
    return text.lower().replace("_", " ")


def _text(diag: dict[str, Any]) -> str:
    details = diag.get("details") or {}
    # the failure's exception class too: a test's `assertRaises(X)` names only X, which
    # torch's message under it need not spell ("backend='inductor' raised: ...")
    parts = [diag.get("reason"), diag.get("explanation"), details.get("torch_message"),
             details.get("guard"), details.get("guards"), details.get("exc_type")]
    return _norm(" ".join(str(p) for p in parts if p))


def problems(exp: Expectation, diag: dict[str, Any], test_file: str) -> list[str]:
    """Why DIAG is not what EXP says a right diagnosis is (empty: it is)."""
    out = []
    if diag.get("kind") != exp.kind:
        out.append(f"kind {diag.get('kind')} (expected {exp.kind})")
    if exp.gb_code and (diag.get("gb_code") or "").upper() != exp.gb_code:
        out.append(f"gb_code {diag.get('gb_code')} (expected {exp.gb_code})")
    text = _text(diag)
    if exp.first_line and _norm(exp.first_line) not in text:
        out.append(f"message lacks {exp.first_line[:60]!r}")
    if exp.guards and not any(_norm(g) in text for g in exp.guards):
        out.append(f"guard text lacks {exp.guards[0][:60]!r}")
    if exp.user_line:
        uf = diag.get("user_frame") or {}
        same_file = os.path.basename(uf.get("filename") or "") == os.path.basename(test_file)
        same_line = uf.get("lineno") in exp.user_linenos or \
            (uf.get("line") or "").strip() == exp.user_line.strip()
        if not (same_file and same_line):
            out.append(f"user line {os.path.basename(uf.get('filename') or '?')}:"
                       f"{uf.get('lineno')} {(uf.get('line') or '').strip()[:50]!r} "
                       f"(expected {exp.user_line.strip()[:50]!r})")
    return out


def miss_class(probs: list[str]) -> str:
    """The class of a miss, from its first problem's kind of check."""
    first = probs[0] if probs else ""
    if first.startswith("kind "):
        got = first.split()[1]
        want = first.split("expected ")[1].rstrip(")")
        return f"{got} on top where the test expects {want}"
    for key, cls in (("gb_code", "another graph break on top (GB code)"),
                     ("message lacks", "torch's message not carried"),
                     ("guard text", "guard text missing"),
                     ("user line", "user line differs")):
        if first.startswith(key):
            return cls
    return first or "unknown"


SHOW_CLASSES = (("compiled graphs in show", "show: compiled graphs in show"),
                ("restarted compiles", "show: restarts differ from the trace"),
                ("compiles [", "show: compiles differ from the trace"),
                ("(the trace has", "show: cache records differ from the trace"),
                ("gives the reason", "show: bypass reason missing"),
                ("cache ", "show: cache lookups differ from the counters"))


def show_class(problem: str) -> str:
    """The class of a miss `show --json` made, from its first problem's words."""
    return next((cls for key, cls in SHOW_CLASSES if key in problem), "show: " + problem)


def show_problems(exp: Expectation, show: dict[str, Any] | None) -> list[str]:
    """A graph count or a cache counter held against `show --json`."""
    if show is None:
        return ["no show document"]
    if exp.kind == "graphs":
        # A compile that produced a graph: its last attempt (Dynamo restarts a frame's
        # analysis after a graph break: attempt 0, then attempt 1 compiles the partial
        # graph) finished ("ok") or ended at a graph break after its partial graph;
        # "empty" and "failed" compiles gave the backend none.
        last: dict[Any, dict[str, Any]] = {}
        for c in show.get("compiles") or []:
            # "0/0_1@2": attempt 1 of 0/0 after the second torch._dynamo.reset()
            key = re.sub(r"_\d+", "", str(c.get("compile_id")))
            if key not in last or (c.get("attempt") or 0) >= (last[key].get("attempt") or 0):
                last[key] = c
        graphs = sum(1 for c in last.values() if c.get("status") in ("ok", "graph_break"))
        return [] if graphs == exp.count else [f"{graphs} compiled graphs in show "
                                              f"(the test counts {exp.count})"]
    if exp.kind == "cache" and exp.counter:
        # counters["aot_autograd"]["autograd_cache_hit"] counts torch's aotautograd_cache_hit
        # artifacts, counters["inductor"]["fxgraph_cache_miss"] its fx_graph_cache_miss ones
        result = next((r for r in ("hit", "miss", "bypass")
                       if exp.counter.endswith("_" + r)), None)
        cache = "aot" if "aot" in exp.counter else "fx"
        rows = [c for c in show.get("caches") or []
                if c.get("result") == result and cache in (c.get("cache") or "").lower()]
        out = []
        if (len(rows) < (exp.count or 0)) if exp.at_least else len(rows) != exp.count:
            out.append(f"{len(rows)} {cache} cache {result}s in show (the test counts "
                       f"{'at least ' if exp.at_least else ''}{exp.count})")
        if exp.reason and not any(_norm(exp.reason) in _norm(str(c.get("reason") or ""))
                                  for c in rows):
            out.append(f"no {cache} cache {result} in show gives the reason "
                       f"{exp.reason[:60]!r} (reasons: "
                       f"{sorted({str(c.get('reason'))[:60] for c in rows})})")
        return out
    if exp.kind == "trace":
        return trace_problems(exp, show)
    return [f"no show check for {exp.kind}"]


def _base_id(compile_id: Any) -> str:
    """"0/0_1@2" (attempt 1 of 0/0, after the second reset) -> "0/0"."""
    return re.sub(r"_\d+$", "", str(compile_id).split("@")[0])


def trace_problems(exp: Expectation, show: dict[str, Any]) -> list[str]:
    """The compiles, restarts and cache records a structured-trace test expects, held
    against show --json's compiles and caches."""
    compiles = show.get("compiles") or []
    got = sorted({_base_id(c.get("compile_id")) for c in compiles})
    out = []
    if got != sorted(set(exp.compile_ids)):
        out.append(f"compiles {got} in show (the trace names {sorted(set(exp.compile_ids))})")
    restarted = sorted({_base_id(c.get("compile_id")) for c in compiles
                        if (c.get("attempt") or 0) >= 1})
    if restarted != sorted(set(exp.restarted)):
        out.append(f"restarted compiles {restarted} in show (the trace restarts "
                   f"{sorted(set(exp.restarted))})")
    counts: dict[str, int] = {}
    for c in show.get("caches") or []:
        name = f"{c.get('cache')}_cache_{c.get('result')}"
        counts[name] = counts.get(name, 0) + 1
    for name, n in sorted(exp.records.items()):
        if counts.get(name, 0) != n:
            out.append(f"{counts.get(name, 0)} {name} in show (the trace has {n})")
    return out


def judge(exps: list[Expectation], diagnoses: list[dict[str, Any]],
          show: dict[str, Any] | None, test_file: str) -> dict[str, Any]:
    """top_right, top3_right, kind_got, why and the miss class of one case."""
    diag_exps = [e for e in exps if e.kind in DIAGNOSIS_KINDS]
    show_exps = [e for e in exps if e.kind not in DIAGNOSIS_KINDS]
    kind_got = diagnoses[0].get("kind") if diagnoses else None
    show_probs = [p for e in show_exps for p in show_problems(e, show)]
    out: dict[str, Any] = {"kind_got": kind_got, "show_right": None if not show_exps
                           else not show_probs}
    if not diag_exps:  # only counts: the show document is the verdict
        out.update(top_right=not show_probs, top3_right=not show_probs,
                   why="; ".join(show_probs) or None,
                   miss_class=show_class(show_probs[0]) if show_probs else None)
        return out
    if not diagnoses:
        out.update(top_right=False, top3_right=False, why="no diagnosis",
                   miss_class="no diagnosis")
        return out
    top = [problems(e, diagnoses[0], test_file) for e in diag_exps]
    top3 = [problems(e, d, test_file) for d in diagnoses[:3] for e in diag_exps]
    best = min(top, key=len)
    out.update(top_right=not best, top3_right=any(not p for p in top3),
               why="; ".join(best) or None, miss_class=miss_class(best) if best else None)
    return out
