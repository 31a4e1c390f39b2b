"""`compdiag perf`'s report in a terminal (rich tables, a bar chart, the limiters, the modes) and
the words for its numbers, shared with the TUI (compdiag_tui/perf_format.py): times, speed-ups
with their 95% interval, sizes, compile and payback cells. The report itself (the --json
document) is built by compdiag/perf/session.py from compdiag/analyses/perf.py."""

from __future__ import annotations

import math
import re
from typing import Any

from compdiag.analyses.cudagraph_coverage import summary_line
from compdiag.analyses.perf_stats import autotune_share, fmt_time, sig3

__all__ = ["bar_chart", "compile_text", "fmt_ci", "fmt_mib", "fmt_ratio", "fmt_time",
           "fmt_x", "payback_text", "print_document", "short_function"]


def fmt_ratio(v: float | None) -> str:
    return "-" if v is None or not math.isfinite(v) else sig3(v)


def fmt_x(v: float | None) -> str:
    """A speed-up: '1.61x', '-' when there is none."""
    return "-" if v is None or not math.isfinite(v) else fmt_ratio(v) + "x"


def fmt_ci(lo: float | None, hi: float | None) -> str:
    """A speed-up's interval: '1.59-1.63', '-' when there is none."""
    return "-" if lo is None or hi is None else f"{fmt_ratio(lo)}-{fmt_ratio(hi)}"


def fmt_mib(b: int | None) -> str:
    return "-" if not b else f"{b / 2**20:.0f} MiB"


def short_function(name: str | None) -> str:
    """Dynamo's resume functions by what they resume: 'hot @9+'."""
    if not name:
        return "?"
    m = re.match(r"torch_dynamo_resume_in_(\w+?)_at_(\d+)$", name)
    return f"{m.group(1)} @{m.group(2)}+" if m else name


def payback_text(g: dict[str, Any]) -> str:
    """A graph row's payback: 'N calls', 'never' (not faster), '-' (unknown)."""
    if g.get("payback_calls"):
        return f"{g['payback_calls']} calls"
    return "never" if g["speedup"]["verdict"] in ("slower", "within noise") else "-"


def compile_text(r: dict[str, Any]) -> str:
    """A mode row's compile time: '73.6 s', or '73.6 s (52.1 s autotuning)'."""
    tuned = autotune_share(r)
    return fmt_time(r.get("compile_s")) + (f" ({fmt_time(tuned)} autotuning)" if tuned else "")


# -- the report in a terminal ------------------------------------------------------------------
_VERDICT_STYLE = {"faster": "green", "slower": "red", "within noise": "yellow",
                  "too few samples": "dim"}


def bar_chart(graphs: list[dict[str, Any]], width: int = 40) -> list[str]:
    """Two bars per timed graph, eager and compiled, on one scale (median per call)."""
    timed = [g for g in graphs if g.get("eager") and g.get("compiled")]
    if not timed:
        return []
    top = max(max(g["eager"]["median"], g["compiled"]["median"]) for g in timed) or 1.0
    lines = []
    for g in timed:
        for label, key in (("eager   ", "eager"), ("compiled", "compiled")):
            v = g[key]["median"]
            n = v / top * width
            full = int(n)
            bar = "█" * full + ("▌" if n - full >= 0.5 else "")
            head = f"{g['compile_id']:>6} " if key == "eager" else " " * 7
            lines.append(f"{head}{label} {bar or '▏'} {fmt_time(v)}")
    return lines


def print_document(doc: dict[str, Any], console: Any) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    for rep in doc["runs"]:
        title = (f"compdiag perf — run {rep['run']}, mode {rep['mode']}, "
                 f"device {rep.get('device') or 'cpu'}")
        t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("graph", "function", "calls", "eager", "compiled", "speed-up", "95% CI",
                    "verdict", "compile", "payback"):
            t.add_column(col, justify="left" if col in ("function", "verdict") else "right",
                         no_wrap=col != "function", overflow="ellipsis")
        for g in rep["graphs"]:
            sp = g["speedup"]
            ci = fmt_ci(sp.get("lo"), sp.get("hi"))
            t.add_row(g["compile_id"], short_function(g.get("function")), str(g.get("calls") or "-"),
                      fmt_time((g["eager"] or {}).get("median")),
                      fmt_time((g["compiled"] or {}).get("median")), fmt_x(sp.get("ratio")), ci,
                      Text(sp["verdict"], style=_VERDICT_STYLE.get(sp["verdict"], "")),
                      fmt_time(g.get("compile_s")), payback_text(g))
        console.print(t)
        tot = rep["totals"]
        if tot.get("speedup"):
            sp = tot["speedup"]
            ci = (f" [95% CI {fmt_ci(sp['lo'], sp.get('hi'))}]"
                  if sp.get("lo") is not None else "")
            console.print(f"time in compiled graphs (calls x median): eager "
                          f"{fmt_time(tot.get('eager_s'))}, compiled "
                          f"{fmt_time(tot.get('compiled_s'))} -> {fmt_x(sp.get('ratio'))}{ci} "
                          f"({sp['verdict']}); compile {fmt_time(tot.get('compile_s'))}"
                          f" over {tot['compiles']} compiles"
                          + (f"; pays back after {tot['payback_runs']} runs like this one"
                             if tot.get("payback_runs") else "")
                          + f"; peak memory {fmt_mib(rep.get('peak_rss_bytes'))}"
                          + (f" (CUDA {fmt_mib(rep.get('peak_cuda_bytes'))})"
                             if rep.get("peak_cuda_bytes") else ""))
        repeats = [q for q in rep.get("repeats") or [] if q.get("speedup")]
        if repeats:
            console.print(f"the same program in {len(repeats) + 1} processes (--repeat; "
                          f"the first compiled, the others reused its cache), "
                          f"{repeats[0]['basis']}: "
                          + ", ".join(f"run {q['run']} {fmt_x(q['speedup'])}"
                                      f" [{fmt_ci(q.get('speedup_lo'), q.get('speedup_hi'))}]"
                                      for q in repeats)
                          + " next to this run's", highlight=False)
        for m in rep.get("modules") or []:
            sp = m["speedup"]
            if not (m.get("eager") and m.get("compiled")):
                continue
            ci = (f" [95% CI {fmt_ci(sp['lo'], sp.get('hi'))}]"
                  if sp.get("lo") is not None else "")
            o = rep.get("outside_graphs") or {}
            inside = (f"; its graphs take {fmt_time(o['graphs_compiled_s'])} of the compiled "
                      f"call" if o.get("target") == m["target"] else "")
            console.print(f"whole calls of {m['target']} ({m.get('calls')} calls, timed before "
                          f"call {m.get('at_call')}): eager {fmt_time(m['eager']['median'])}, "
                          f"compiled {fmt_time(m['compiled']['median'])} -> "
                          f"{fmt_x(sp.get('ratio'))}{ci} ({sp['verdict']}){inside}",
                          highlight=False)
        cg_line = summary_line(rep.get("cudagraph_coverage"))
        if cg_line:
            console.print(cg_line, highlight=False)
        chart = bar_chart(rep["graphs"])
        if chart:
            console.print(Text("\n".join(chart)))
        if rep["limiters"]:
            console.print("[bold]what limits it[/] (most impact first; impact ≈ share of the "
                          "compiled time the cause touches):")
            for i, lim in enumerate(rep["limiters"][:8], 1):
                frame = lim.get("user_frame") or {}
                where = (f" at {frame.get('filename')}:{frame.get('lineno')}"
                         if frame.get("filename") else "")
                console.print(f" {i}. [bold]{lim['kind']}[/] ({lim['impact']:.0%}, "
                              f"{lim['basis']}) {lim['reason']}{where}", markup=True,
                              highlight=False)
                console.print(f"    {lim['evidence']}", highlight=False)
                if lim.get("fix"):
                    console.print(f"    fix: {lim['fix']}", highlight=False)
        elif rep["graphs"]:
            console.print("what limits it: nothing recorded in the store (no graph breaks, "
                          "recompiles, fallbacks, fusion misses or dispatch-bound graphs)")
        for note in rep["notes"]:
            console.print(f"[dim]note: {note}[/]", highlight=False)
        if not rep["graphs"]:
            console.print("compdiag perf: no compiled graph was called; nothing to time")
    modes = doc.get("modes")
    if modes:
        t = Table(title="modes", title_justify="left")
        several = any(r.get("processes") for r in modes["rows"])
        for col in ("mode", "run", "compile", "steady-state time",
                    "speed-up over eager [range over processes' 95% CIs]" if several
                    else "speed-up over eager [95% CI]",
                    *(["per process"] if several else []),
                    "measured on", "peak memory", "CUDA graphs"):
            t.add_column(col)
        for r in modes["rows"]:
            cg = r.get("cudagraphs") or {}
            ci = (f"{fmt_x(r['speedup'])} [{fmt_ci(r['speedup_lo'], r.get('speedup_hi'))}]"
                  if r.get("speedup_lo") is not None else fmt_x(r.get("speedup")))
            per = [", ".join(fmt_x(x) for x in r.get("processes") or [])] if several else []
            t.add_row(r["mode"], str(r["run"]), compile_text(r),
                      fmt_time(r.get("steady_s")), ci, *per, r.get("basis") or "compiled graphs",
                      fmt_mib(r.get("peak_cuda_bytes") or r.get("peak_rss_bytes")),
                      f"{cg.get('applied', 0)} applied, {cg.get('skipped', 0)} skipped"
                      if cg.get("applied") or cg.get("skipped") else "-")
        console.print(t)
        rec = modes["recommendation"]
        console.print(f"[bold]recommendation:[/] {rec['mode'] or 'none'}", highlight=False)
        for reason in rec["reasons"]:
            console.print(f"  - {reason}", highlight=False)
        for caveat in rec.get("caveats") or []:
            console.print(f"[dim]  note: {caveat}[/]", highlight=False)
    tried = doc.get("tried")
    if tried is not None:
        print_tried(tried, console)


def print_tried(tried: dict[str, Any], console: Any) -> None:
    """`--try`: one line per setting, its effect beside the baseline."""
    console.print(f"[bold]settings tried[/] (each in its own process, against baseline run "
                  f"{tried['baseline']['run']}):", highlight=False)
    if not tried["settings"] and not tried["not_tried"]:
        console.print("  no limiter names a setting compdiag can apply from outside the script")
    for s in tried["settings"]:
        ch = s.get("compiled_change") or {}
        sp, base = s.get("speedup") or {}, s.get("baseline_speedup") or {}
        line = f"  {s['what']} (for {s['limiter']}): {s['verdict']}"
        if ch.get("ratio") is not None:
            line += (f"; compiled time, baseline / setting: {fmt_x(ch['ratio'])} "
                     f"[95% CI {fmt_ci(ch.get('lo'), ch.get('hi'))}]")
        if sp.get("ratio") is not None:
            line += (f"; speed-up over eager {fmt_x(sp['ratio'])} "
                     f"[{fmt_ci(sp.get('lo'), sp.get('hi'))}] beside the baseline's "
                     f"{fmt_x(base.get('ratio'))} [{fmt_ci(base.get('lo'), base.get('hi'))}]")
        console.print(line + f" (run {s['run']})", highlight=False)
    for s in tried["not_tried"]:
        console.print(f"  [dim]{s['what']} (for {s['limiter']}): not tried, {s['why']}[/]",
                      highlight=False)
