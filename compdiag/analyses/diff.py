"""`compdiag diff RUN_A RUN_B`: what one run of a program did differently from another (a torch
upgrade, a changed line, another mode, a rerun that autotuned differently).

Compile ids are not stable between runs (one graph break more shifts every frame after it), so
facts are matched by what they are about: a compile by its function and line, a graph break by
its kind and user line, a kernel by its name (Inductor names kernels after their fused ops), an
autotuning contest by its op and its place among that op's contests. File names are compared by
their last component, so two checkouts of the same program line up."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Callable, Iterable

from compdiag.analyses.compile_names import as_user_knows
from compdiag.ingest import parsers as P
from compdiag.store.reader import Reader

Key = tuple[Any, ...]


def _base(path: str | None) -> str:
    return os.path.basename(path) if path else "?"


def _where(row: dict[str, Any]) -> str:
    return f"{_base(row.get('filename'))}:{row.get('lineno') or '?'}"


def _named(compiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each compile with its function's name and place, from another compile of the same
    frame where its own row has none (a compile Dynamo gave up on at the recompile limit:
    probes40a's diff printed it as `? ?:? failed`)."""
    named = {(c.get("frame"), c.get("generation")): c for c in compiles if c.get("co_name")}
    out = []
    for c in compiles:
        same = named.get((c.get("frame"), c.get("generation")))
        if not c.get("co_name") and same is not None:
            c = {**c, **{k: same.get(k) for k in ("co_name", "filename", "lineno")}}
        out.append(c)
    return out


def _first_line(value: Any, limit: int = 160) -> str:
    text = str(value or "")
    line = P.first_line(text, len(text))
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _counted(rows: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], Key]) -> Counter:
    return Counter(key(r) for r in rows)


def _count_changes(a: Counter, b: Counter, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each key whose count differs: only in A (b == 0), only in B (a == 0), or more/fewer."""
    out = []
    for k in sorted(set(a) | set(b), key=lambda k: tuple(str(x) for x in k)):
        if a[k] != b[k]:
            out.append({**dict(zip(fields, k)), "a": a[k], "b": b[k]})
    return out


def _autotune_contests(rows: list[dict[str, Any]]) -> dict[Key, str]:
    """(op, n) -> the winner with its configuration (the detail's first line without its time):
    the same graphs run their contests in the same order, so the n-th `mm` of one run is the
    n-th of the other."""
    seen: Counter = Counter()
    out: dict[Key, str] = {}
    for r in rows:
        op = r.get("op") or "?"
        seen[op] += 1
        best = _first_line(r.get("detail"), 400)
        parts = best.split(" ", 3)  # "NAME 0.0123 ms DESCRIPTION"
        described = (f"{parts[0]} {parts[3]}".strip() if len(parts) == 4 and parts[2] == "ms"
                     else r.get("choice") or best)
        out[(op, seen[op])] = described or str(r.get("choice"))
    return out


def _perf(reader: Reader, run_id: int) -> dict[str, Any] | None:
    """The run's paired speed-up, when it was timed (`compdiag perf`)."""
    from compdiag.analyses.perf import repeat_summary

    if not reader.perf_graphs(run_id) and not reader.perf_calls(run_id):
        return None
    s = repeat_summary(reader, run_id)
    return {k: s.get(k) for k in ("basis", "speedup", "speedup_lo", "speedup_hi", "eager_s",
                                  "compiled_s")}


def _run_facts(reader: Reader, run_id: int, compiles: list[dict[str, Any]]) -> dict[str, Any]:
    run = reader.run(run_id)
    totals = [(c.get("stage_times") or {}).get("total") for c in compiles]
    return {"id": run_id, "argv": run.get("argv"), "exit_code": run.get("exit_code"),
            "status": run.get("status"), "torch_version": run.get("torch_version"),
            "device": run.get("device"), "mode": run.get("mode"),
            "compile_s": round(sum(t for t in totals if t), 3) if any(totals) else None,
            "counts": reader.counts(run_id), "perf": _perf(reader, run_id),
            "cache_saved_s": _saved(reader.cache_events(run_id))}


def _saved(events: list[dict[str, Any]]) -> float | None:
    """The compile time the run's cache hits saved, torch's figure (None: no hit says)."""
    saved = [e["time_saved_s"] for e in events
             if e.get("result") == "hit" and isinstance(e.get("time_saved_s"), (int, float))]
    return round(sum(saved), 3) if saved else None


def _cache_lookups(reader: Reader, run_id: int,
                   compiles: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """(function, where, cache, n) -> the n-th lookup of that cache by that function."""
    by_cid = {c["compile_id"]: c for c in compiles}
    seen: Counter = Counter()
    out: dict[Key, dict[str, Any]] = {}
    for e in reader.cache_events(run_id):
        c = by_cid.get(e["compile_id"]) or {}
        k = (c.get("co_name") or "?", _where(c), e["cache"])
        seen[k] += 1
        out[(*k, seen[k])] = e
    return out


def _cache_section(reader: Reader, run_a: int, run_b: int, ca: list[dict[str, Any]],
                   cb: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lookups whose result differs (a cold run's misses that a warm run hit: what its
    compile time saved, torch's figure, in `time_saved_s`), whose key differs (with the key
    components that differ), or that only one run made."""
    from compdiag.analyses.caches import changed_components

    la, lb = _cache_lookups(reader, run_a, ca), _cache_lookups(reader, run_b, cb)
    rows = []
    for k in sorted(set(la) | set(lb), key=lambda k: tuple(str(x) for x in k)):
        ea, eb = la.get(k), lb.get(k)
        if ea and eb and ea.get("key") == eb.get("key") and ea["result"] == eb["result"]:
            continue
        changed = []
        if ea and eb and ea.get("seq") and eb.get("seq"):
            ka = reader.cache_key_components(run_a, ea["seq"])
            kb = reader.cache_key_components(run_b, eb["seq"])
            if ka and kb:  # a bypass has no key to compare
                changed = [c.to_json() for c in changed_components(ka, kb)]
        hit = eb if eb and eb["result"] == "hit" else ea if ea and ea["result"] == "hit" \
            else None
        rows.append({"function": k[0], "where": k[1], "cache": k[2], "n": k[3],
                     "a": ea["result"] if ea else None, "b": eb["result"] if eb else None,
                     "changed": changed,
                     "time_saved_s": hit.get("time_saved_s") if hit else None})
    return rows


def diff_runs(reader: Reader, run_a: int, run_b: int) -> dict[str, Any]:
    """The differences between two runs, section by section; `same` when there are none
    (times and compile ids aside, which always differ)."""
    # an nn.Sequential's compile by its class, at the user's call (not torch's wrapper `inner`)
    ca = _named(as_user_knows(reader, run_a, reader.compiles(run_a)))
    cb = _named(as_user_knows(reader, run_b, reader.compiles(run_b)))
    a, b = _run_facts(reader, run_a, ca), _run_facts(reader, run_b, cb)
    sections: dict[str, list[dict[str, Any]]] = {}
    # First: a warm cache changes a rerun more than anything (every lookup miss -> hit).
    sections["caches"] = _cache_section(reader, run_a, run_b, ca, cb)

    sections["run"] = [{"field": f, "a": a[f], "b": b[f]}
                       for f in ("exit_code", "status", "torch_version", "device", "mode")
                       if a[f] != b[f]]

    def comp(c: dict[str, Any]) -> Key:
        return (c.get("co_name") or "?", _where(c), c.get("status") or "?")
    sections["compiles"] = _count_changes(_counted(ca, comp), _counted(cb, comp),
                                          ("function", "where", "status"))

    def gb(r: dict[str, Any]) -> Key:
        return (r.get("gb_code") or r.get("gb_type") or "?", _first_line(r.get("reason")),
                _where(r))
    sections["graph_breaks"] = _count_changes(
        _counted(reader.graph_breaks(run_a), gb), _counted(reader.graph_breaks(run_b), gb),
        ("gb_code", "reason", "where"))

    def rc(r: dict[str, Any]) -> Key:
        return (_first_line(r.get("guard") or r.get("reason")),)
    sections["recompiles"] = _count_changes(
        _counted(reader.recompiles(run_a), rc), _counted(reader.recompiles(run_b), rc),
        ("guard",))

    def fail(r: dict[str, Any]) -> Key:
        return (r.get("stage") or "?", r.get("exc_type") or "?", _where(r))
    sections["failures"] = _count_changes(
        _counted(reader.failures(run_a), fail), _counted(reader.failures(run_b), fail),
        ("stage", "exc_type", "where"))

    def kern(r: dict[str, Any]) -> Key:
        return (r.get("backend") or "?", r.get("name") or "?")
    sections["kernels"] = _count_changes(
        _counted(reader.kernels(run_a, with_source=False), kern),
        _counted(reader.kernels(run_b, with_source=False), kern), ("backend", "name"))

    def cg(r: dict[str, Any]) -> Key:
        return ("applied" if r.get("applied") else "skipped",
                "" if r.get("applied") else _first_line(r.get("reason")))
    sections["cudagraphs"] = _count_changes(
        _counted(reader.cudagraphs(run_a), cg), _counted(reader.cudagraphs(run_b), cg),
        ("outcome", "reason"))

    ta, tb = _autotune_contests(reader.autotune(run_a)), _autotune_contests(reader.autotune(run_b))
    sections["autotune"] = [{"op": op, "n": n, "a": ta.get((op, n)), "b": tb.get((op, n))}
                            for op, n in sorted(set(ta) | set(tb), key=lambda k: (k[0], k[1]))
                            if ta.get((op, n)) != tb.get((op, n))]

    def acc(r: dict[str, Any]) -> Key:
        return (str(r.get("output")), "ok" if r.get("ok") else "mismatch")
    sections["accuracy"] = _count_changes(
        _counted(reader.accuracy(run_a), acc), _counted(reader.accuracy(run_b), acc),
        ("output", "result"))

    return {"a": a, "b": b, "sections": sections,
            "same": not any(sections.values())}

