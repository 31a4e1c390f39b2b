"""Compile time and cache lookups in `show` (its JSON keys and lines), `perf` and the TUI's
Timings tab: one formatter for all of them."""

from __future__ import annotations

from typing import Any

from compdiag.analyses import caches as C
from compdiag.analyses import compile_time as T
from compdiag.formats.compile_id import display
from compdiag.store.reader import Reader


def attach(reader: Reader, run_id: int, doc: dict[str, Any]) -> dict[str, Any]:
    """show's document with `caches`, `compile_time` (the run's) and, per compile entry,
    `compile_time` and `guards`."""
    per = T.per_compile(reader, run_id)
    for c in doc.get("compiles", []):
        ct = dict(per.get(c["compile_id"]) or {})
        c["guards"] = ct.pop("guards", None)
        c["compile_time"] = ct or None
    doc["compile_time"] = T.for_run(reader, run_id, per)
    doc["caches"] = C.lookups(reader, run_id)
    return doc


def _s(x: float) -> str:
    return f"{x:.2f} s"


def compile_time_lines(ct: dict[str, Any] | None, top: int = 6) -> list[str]:
    """'compile time 13.12 s of 23.85 s wall ...' and the largest stages, one line each."""
    if not ct or not ct.get("total_s"):
        return []
    total = ct["total_s"]
    head = f"compile time {_s(total)}"
    if ct.get("wall_s") is not None:
        head += f" of the run's {_s(ct['wall_s'])} wall time"
    n = ct.get("compiles")
    if n is not None and n != 1:
        head += f" ({n} compiles)"
    lines = [head]
    ranked = sorted(ct["stages"].items(), key=lambda kv: -kv[1])
    for name, s in ranked[:top]:
        lines.append(f"  {name:<20} {_s(s):>10}  {100 * s / total:5.1f}%")
    rest = sum(s for _, s in ranked[top:])
    if rest > 0:
        lines.append(f"  {'(other stages)':<20} {_s(rest):>10}  {100 * rest / total:5.1f}%")
    lines.append(f"  {'unaccounted':<20} {_s(ct['unaccounted_s']):>10}  "
                 f"{100 * ct['unaccounted_s'] / total:5.1f}%")
    if ct.get("note"):
        lines.append(f"  note: {ct['note']}")
    return lines


def guard_lines(g: dict[str, Any] | None) -> list[str]:
    """'guards: 10, built in 0.03 s; most from L['x'] (6), ...'."""
    if not g:
        return []
    head = f"guards: {g['count'] if g.get('count') is not None else '?'}"
    if g.get("build_s") is not None:
        head += f", built in {_s(g['build_s'])}"
    top = ", ".join(f"{t['source']} ({t['guards']})" for t in g.get("top_sources") or [])
    return [head + (f"; most from {top}" if top else "")]


def cache_lines(caches: list[dict[str, Any]], most: int = 8) -> list[str]:
    """A count per cache and result, then one line per lookup that did not hit (at most
    `most`): '[0/0] fx_graph miss: inductor_config[x]: False -> True (vs run 1)'."""
    if not caches:
        return []
    counts: dict[str, dict[str, int]] = {}
    for c in caches:
        per = counts.setdefault(c["cache"], {})
        per[c["result"]] = per.get(c["result"], 0) + 1
    out = ["caches: " + "; ".join(
        f"{cache} " + ", ".join(f"{n} {result}" for result, n in per.items())
        for cache, per in counts.items())]
    shown = [c for c in caches if c["result"] != "hit"]
    for c in shown[:most]:
        text = f"[{c['compile_id']}] {c['cache']} {c['result']}"
        why = c.get("why") or {}
        if c["result"] == "bypass" and c.get("reason"):
            text += f": {c['reason']}"
        elif why.get("status") == "cold":
            text += ": cold (no earlier compile of this function in the store)"
        elif why.get("status") == "same_key":
            text += f": same key as {_ref(why, c)}, entry not in this cache"
        elif why.get("changed"):
            text += (f": {'; '.join(x['summary'] for x in why['changed'][:3])} "
                     f"(vs {_ref(why, c)})")
        elif why.get("status") == "changed":
            text += (f": key changed since {_ref(why, c)} (no components of it "
                     "stored: torch logs none for this cache)")
        out.append("  " + text)
    if len(shown) > most:
        out.append(f"  ... {len(shown) - most} more (show --json: caches)")
    return out


def _ref(why: dict[str, Any], lookup: dict[str, Any]) -> str:
    """The compile a miss was compared with: 'run 1', and its compile id when that is not the
    lookup's own ('run 1 0/0' for a compile before torch._dynamo.reset() in the same run)."""
    ref = why.get("compared_to") or {}
    cid = ref.get("compile_id")
    return f"run {ref.get('run_id')}" + (
        f" {display(cid)}" if cid and cid != lookup.get("compile_id") else "")
