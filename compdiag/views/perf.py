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
from compdiag.formats.words import plural
from compdiag.views.compile_time import compile_time_lines
from compdiag.views.table import Col, fitted_table

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
    from rich.text import Text

    for rep in doc["runs"]:
        title = (f"compdiag perf — run {rep['run']}, mode {rep['mode']}, "
                 f"device {rep.get('device') or 'cpu'}")
        cols = (Col("graph", justify="right"), Col("function", 70, flex=True, min_width=8),
                Col("calls", 60, "right"), Col("eager", justify="right"),
                Col("compiled", justify="right"), Col("speed-up", justify="right"),
                Col("95% CI", 80, "right"), Col("verdict", 90), Col("compile", 40, "right"),
                Col("payback", 50, "right"))
        rows = []
        for g in rep["graphs"]:
            sp = g["speedup"]
            rows.append((g["compile_id"], short_function(g.get("function")),
                         str(g.get("calls") or "-"), fmt_time((g["eager"] or {}).get("median")),
                         fmt_time((g["compiled"] or {}).get("median")), fmt_x(sp.get("ratio")),
                         fmt_ci(sp.get("lo"), sp.get("hi")),
                         Text(sp["verdict"], style=_VERDICT_STYLE.get(sp["verdict"], "")),
                         fmt_time(g.get("compile_s")), payback_text(g)))
        console.print(f"[bold]{title}[/]", highlight=False)
        t = fitted_table(console.width, cols, rows)
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
                          f" over {plural(tot['compiles'] or 0, 'compile')}"
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
        for line in compile_time_lines(rep.get("compile_time"), top=4):
            console.print(line, highlight=False, markup=False)
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
        several = any(r.get("processes") for r in modes["rows"])
        cols = (Col("mode"), Col("run", 80, "right"), Col("compile", 90, flex=True, min_width=8),
                Col("steady-state", 70, "right"),
                Col("speed-up [range]" if several else "speed-up [95% CI]", flex=True,
                    min_width=17),
                *([Col("per process", 30, flex=True)] if several else []),
                Col("measured on", 40), Col("peak memory", 50, "right"),
                Col("CUDA graphs", 60, flex=True, min_width=11))
        rows = []
        for r in modes["rows"]:
            cg = r.get("cudagraphs") or {}
            ci = (f"{fmt_x(r['speedup'])} [{fmt_ci(r['speedup_lo'], r.get('speedup_hi'))}]"
                  if r.get("speedup_lo") is not None else fmt_x(r.get("speedup")))
            per = [", ".join(fmt_x(x) for x in r.get("processes") or [])] if several else []
            rows.append((r["mode"], str(r["run"]), compile_text(r), fmt_time(r.get("steady_s")),
                         ci, *per, r.get("basis") or "compiled graphs",
                         fmt_mib(r.get("peak_cuda_bytes") or r.get("peak_rss_bytes")),
                         f"{cg.get('applied', 0)} applied, {cg.get('skipped', 0)} skipped"
                         if cg.get("applied") or cg.get("skipped") else "-"))
        console.print("[bold]modes[/] (speed-up over eager; "
                      + ("range over the processes' 95% CIs)" if several else "its 95% CI)"),
                      highlight=False)
        t = fitted_table(console.width, cols, rows)
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


class ProgressView:
    """`compdiag perf`'s progress on a terminal's stderr (nothing when stderr is not one): a
    line per process (mode, which process, time so far) and a bar per graph being timed,
    filled over the timing budget. Fed by perf/session.py from the child's side channel."""

    def __init__(self, console: Any) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]perf[/] {task.description}"), BarColumn(),
                            TextColumn("{task.fields[note]}"), TimeElapsedColumn(),
                            console=console, transient=True, disable=not console.is_terminal)
        self.process: dict[str, Any] = {}
        self.timing: dict[tuple[str, str], tuple[Any, float, float]] = {}

    def __enter__(self) -> "ProgressView":
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(*exc)

    def process_started(self, mode: str, i: int, repeat: int) -> None:
        which = f" process {i + 1}/{repeat}" if repeat > 1 else ""
        self.process[mode] = self.bar.add_task(f"mode {mode}{which}: running", total=None,
                                               note="compiling, then timing each graph")

    def process_done(self, mode: str) -> None:
        task = self.process.pop(mode, None)
        if task is not None:
            self.bar.update(task, total=1, completed=1, note="done")

    def event(self, mode: str, event: dict[str, Any]) -> None:
        import time

        cid = str(event.get("compile_id"))
        if event.get("event") == "timing":
            budget = float(event.get("budget_s") or 1.5)
            task = self.bar.add_task(f"mode {mode} · graph {cid}", total=budget,
                                     note="eager vs compiled")
            self.timing[(mode, cid)] = (task, time.monotonic(), budget)
        elif event.get("event") == "timed":
            entry = self.timing.pop((mode, cid), None)
            if entry is not None:
                self.bar.update(entry[0], completed=entry[2],
                                note=f"{event.get('samples', 0)} samples")

    def tick(self) -> None:
        import time

        now = time.monotonic()
        for task, started, budget in list(self.timing.values()):
            # The budget is a floor past the least samples: the bar waits at 99% after it.
            self.bar.update(task, completed=min(now - started, budget * 0.99))
