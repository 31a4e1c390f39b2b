"""`compdiag explain`'s document (its --json keys: docs/json.md) and its terminal view: one
panel per diagnosis, most important first, with the user's line and the fix."""

from __future__ import annotations

import os

from typing import Any

from rich.markup import escape

from compdiag.analyses.locate import DEF, DEF_NOTE
from compdiag.analyses.registry import kind_spec
from compdiag.formats.compile_id import display
from compdiag.formats.guard_source import in_user_spelling
from compdiag.formats.words import plural
from compdiag.store.schema import SCHEMA_VERSION
from compdiag.views.show import run_line, run_summary

# A kind's title, words and colour are its KindSpec's (in its module; analyses/kind_spec.py).


def explain_document(reader: Any, run_id: int) -> dict[str, Any]:
    from compdiag.analyses.explain import explain_folded, public

    run = reader.run(run_id)
    summary = run_summary(reader, run)
    summary["counts"] = reader.counts(run_id)
    from compdiag.analyses.cudagraph_coverage import coverage

    kept, dropped, faults = explain_folded(reader, run_id)
    return {"schema_version": SCHEMA_VERSION, "run": summary,
            "diagnoses": [public(d) for d in kept],
            "faults": [f.to_json() for f in dict.fromkeys(faults)],
            "folded": [{"kind": d.kind, "stage": d.stage, "compile_id": d.compile_id,
                        "reason": d.reason, "into": f.into, "why": f.why,
                        "count": d.count} for d, f in dropped],
            "cudagraph_coverage": coverage(reader, run_id)}


def _kind_count(n: int, kind: str, info: bool = False) -> str:
    return kind_spec(kind).count(n, info)


def header_lines(doc: dict[str, Any]) -> list[str]:
    """The run, then what the diagnoses below cover, with what was folded said: the store's
    counts (breaks, recompile reasons, failures) need not equal the panels (one panel per
    place or guard, ×N for its repeats; a failure a break already reports is folded into it)."""
    run = doc["run"]
    diags = doc["diagnoses"]
    c = run.get("counts") or {}
    lines = [run_line(run)]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for d in diags:
        by_kind.setdefault(d["kind"], []).append(d)

    def listed(ds: list[dict[str, Any]], info: bool = False) -> str:
        kinds: dict[str, int] = {}
        for d in ds:
            kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
        return ", ".join(_kind_count(n, k, info) for k, n in kinds.items())
    problems = [d for d in diags if d.get("severity") != "info"]
    info = [d for d in diags if d.get("severity") == "info"]
    failed = c.get("failed_compiles") or 0
    # a failure that ended the program left nothing to run in eager (probes42a)
    ended = any((d.get("details") or {}).get("fatal") for d in problems)
    made = plural(c.get("compiles", 0), "compile") + (
        "" if not failed else " (it failed: no graph)" if ended else
        " (it failed: no graph, its code ran in eager)"
        if failed == c.get("compiles") == 1 else f" ({failed} failed: no graph)")
    lines.append(f"{made}; "
                 f"{plural(len(problems), 'problem')}"
                 + (f" below: {listed(problems)}" if problems else "")
                 + (f"; {len(info)} for information (nothing to fix): {listed(info, True)}"
                    if info else ""))
    notes = []
    gb, gb_panels = c.get("graph_breaks", 0), by_kind.get("graph_break", [])
    if gb > len(gb_panels) and gb_panels:
        notes.append(f"{plural(gb, 'graph break')} recorded at {len(gb_panels)} "
                     f"{'place' if len(gb_panels) == 1 else 'places'} (×N on a panel counts its "
                     "repeats)")
    reasons = c.get("recompile_reasons", c.get("recompiles", 0))
    rc_panels = by_kind.get("recompile", [])
    if rc_panels and reasons != len(rc_panels):
        notes.append(f"{plural(reasons, 'recompile reason')} recorded, diagnosed as "
                     f"{_kind_count(len(rc_panels), 'recompile')}: one per guard that changed "
                     "(a recompile may list several reasons, a resume function's recompile is "
                     "its function's, ×N counts the repeats)")
    folds: dict[tuple[str, str, str], int] = {}
    for f in doc.get("folded") or []:
        if f.get("stage") == "accuracy":
            continue  # a check's own row: counted as an accuracy mismatch, not a failure
        key = (f["kind"], f["into"], f["why"])
        folds[key] = folds.get(key, 0) + (f.get("count") or 1)  # a ×N diagnosis is N
    for (kind, into, why), n in folds.items():
        notes.append(f"{_kind_count(n, kind)} folded into the {kind_spec(into).words[0]} "
                     f"{'diagnosis' if len(by_kind.get(into, [])) == 1 else 'diagnoses'} "
                     f"({why})")
    lines += [f"[dim]  · {escape(n)}[/]" for n in notes]
    return lines


def excerpt_sources(reader: Any, run_ids: list[int],
                    diags: list[dict[str, Any]]) -> dict[str, list[str]]:
    """{path: lines} of the user files the diagnoses point at, as the runs kept them (the
    store, never the file: it may have changed or moved since the run), read while the
    store is open so that the panels can be printed after it is closed."""
    out: dict[str, list[str]] = {}
    for d in diags:
        fn = (d.get("user_frame") or {}).get("filename")
        for run_id in run_ids:
            if not fn or fn in out:
                break
            lines = reader.source_lines(run_id, fn)
            if lines is not None:
                out[fn] = lines
    return out


def _excerpt(frame: dict[str, Any], sources: dict[str, list[str]]):
    """Syntax-highlighted lines around the user's line, or None when the run kept no text
    of its file."""
    from rich.syntax import Syntax

    fn, lineno = frame.get("filename"), frame.get("lineno")
    lines = sources.get(fn or "")
    if not lines or not lineno or not 1 <= lineno <= len(lines):
        return None
    start, end = max(1, lineno - 2), min(len(lines), lineno + 2)
    code = "\n".join(lines[start - 1:end])
    return Syntax(code, "python", line_numbers=True, start_line=start,
                  highlight_lines={lineno}, theme="ansi_dark", word_wrap=True)


def diagnosis_title(i: int, d: dict[str, Any]) -> str:
    """`#1 graph break GB0059 ×2  compile 0/0` (the panel's title; report.md's heading)."""
    title = f"#{i} {kind_spec(d['kind']).title_of(d.get('severity'))}"
    if d.get("stage"):
        title += f" [{d['stage']}]"
    if d.get("gb_code"):
        title += f" {d['gb_code']}"
    if d.get("count", 1) > 1:
        title += f" ×{d['count']}"
    if d.get("compile_id"):
        title += f"  compile {display(d['compile_id'])}"
    return title


def print_explain(doc: dict[str, Any], console: Any, limit: int = 10,
                  sources: dict[str, list[str]] | None = None) -> None:
    """`sources`: excerpt_sources() of the doc's diagnoses (no excerpts without it)."""
    run = doc["run"]
    diags = doc["diagnoses"]
    for line in header_lines(doc):
        console.print(line, highlight=False)
    print_faults(doc, console)
    from compdiag.analyses.cudagraph_coverage import summary_line

    cg_line = summary_line(doc.get("cudagraph_coverage"))
    if cg_line:
        console.print(cg_line, highlight=False)
    info = [d for d in diags if d.get("severity") == "info"]
    diags = [d for d in diags if d.get("severity") != "info"]
    if not diags and any(d["kind"] == "accuracy" for d in info):
        # a check that compared numbers that differ is never "no problems found" (issue 29
        # §4), though the differences are within its tolerance
        console.print(f"[green]run {run['id']}: no compiler problems found[/] — the accuracy "
                      "check's differences are within its tolerance, and why is below; no "
                      "graph breaks, recompiles, failures, CUDA-graph skips or missed fusions "
                      "recorded.")
    elif not diags and doc.get("faults"):
        console.print(f"[yellow]run {run['id']}: no problems found by the analyses that ran[/]"
                      " (one failed, above).")
    elif not diags:
        console.print(f"[green]run {run['id']}: no problems found[/] — no graph breaks, "
                      "recompiles, failures, CUDA-graph skips or missed fusions recorded"
                      + (" (only what torch does on purpose, below)." if info else "."))
    print_panels(diags, console, limit, sources)
    print_info(info, console, limit)


def print_info(info: list[dict[str, Any]], console: Any, limit: int) -> None:
    """What torch does on purpose (one automatic-dynamic recompile per new dimension, a fusion
    refused by design): one line each, not a numbered panel with a fix."""
    if not info:
        return
    from rich.text import Text

    console.print(f"[dim]info ({len(info)}, nothing to fix):[/]")
    for d in info[:limit]:
        uf = d.get("user_frame") or {}
        at = (f" at {uf['filename']}:{uf['lineno']}{fallback_note(uf)}"
              if uf.get("filename") else "")
        ranks = f" (ranks {','.join(map(str, d['ranks']))})" if d.get("ranks") else ""
        console.print(Text(f"  {kind_spec(d['kind']).title_of('info')}: {d['reason']}{at}"
                           f"{ranks}", style="dim"))


def print_faults(doc: dict[str, Any], console: Any) -> None:
    """One line per kind that raised (analyses.registry.KindFault): explain fails open per
    kind, and says which diagnoses are missing rather than printing a traceback or nothing."""
    from rich.text import Text

    from compdiag.analyses.registry import KindFault

    for f in doc.get("faults") or ():
        console.print(Text("compdiag: " + KindFault(f["kind"], f["error"]).line(),
                           style="yellow"))


def fallback_note(uf: dict[str, Any]) -> str:
    """" (the compiled function; torch named no line)" after a line that is only the compiled
    function's (locate's evidence `def`, the last resort): the reader knows to look inside."""
    return f" ({DEF_NOTE})" if uf.get("evidence") == DEF else ""


def made_at_words(made: dict[str, Any], uf: dict[str, Any]) -> str:
    """Beside the failure's own line (where the tensor is read): the line torch's message says
    the tensor was made at, the file named only where it is not the failure's."""
    where = (f"line {made['lineno']}" if made.get("filename") == uf.get("filename")
             else f"{made.get('filename')}:{made['lineno']}")
    line = f": {made['line'].strip()}" if made.get("line") else ""
    return f"torch says the tensor was made at {where}{line}"


def cached_note(origin: dict[str, Any]) -> str:
    """Where a diagnosis of a compile served from the FX graph cache comes from."""
    return (f"from the cached compile: this compile was served from the FX graph cache; "
            f"run {origin.get('run')}, compile {origin.get('compile_id')} made the entry "
            "and lowered it")


def print_panels(diags: list[dict[str, Any]], console: Any, limit: int = 10,
                 sources: dict[str, list[str]] | None = None) -> None:
    """One panel per diagnosis (a job's name the ranks they concern)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    for i, d in enumerate(diags[:limit], 1):
        style = kind_spec(d["kind"]).style
        title = diagnosis_title(i, d)
        if d.get("ranks"):
            title += f"  rank{'s' if len(d['ranks']) > 1 else ''} " + \
                ",".join(map(str, d["ranks"]))
        body: list[Any] = [Text(d["reason"], style="bold")]
        uf = d.get("user_frame") or {}
        if uf.get("filename"):
            loc = Text(f"at {uf['filename']}:{uf['lineno']}{fallback_note(uf)}", style="dim")
            body.append(loc)
            ex = _excerpt(uf, sources or {})
            if ex is not None:
                body.append(ex)
            elif uf.get("line"):
                body.append(Text(f"    {uf['line']}", style="italic"))
        made = (d.get("details") or {}).get("made_at") or {}
        if made.get("lineno"):  # torch's word on where the failing tensor came from
            body.append(Text(made_at_words(made, uf), style="dim"))
        if d.get("explanation"):
            body.append(Text(d["explanation"]))
        if d.get("from_cache"):
            body.append(Text(cached_note(d["from_cache"]), style="dim"))
        for c in d.get("consequences") or []:
            if not c.get("same_finding"):  # what it caused, folded under it
                body.append(Text(f"caused: {kind_spec(c['kind']).title}: {c['reason']}",
                                 style="dim"))
        details = d.get("details") or {}
        if d["kind"] == "recompile" and details.get("values"):
            vals = ", ".join(str(v) for v in details["values"][:8])
            body.append(Text(f"guard {in_user_spelling(str(details.get('guard')))}: values "
                             f"seen {vals}", style="dim"))
        if d["kind"] == "recompile":
            calls = [c.rsplit(":", 1) for c in details.get("call_stack") or []]
            call = ({"lineno": int(calls[-1][1])} if calls[-1][0] == uf.get("filename") else
                    {"lineno": f"{os.path.basename(calls[-1][0])}:{calls[-1][1]}"}) \
                if calls and len(calls[-1]) == 2 and calls[-1][1].isdigit() else {}
            where = [f"{label} line {f['lineno']}" for label, f in (
                ("def at", details.get("def_line") or {}),
                ("guarded value read at", details.get("guard_line") or {}),
                ("called at", call))
                if f.get("lineno") and f.get("lineno") != uf.get("lineno")]
            if where:
                body.append(Text("; ".join(where), style="dim"))
        hints = [h for h in d.get("hints") or [] if "report an issue" not in h.lower()]
        for h in hints[:2]:
            body.append(Text(f"torch hint: {h}", style="dim"))
        fix = Text("fix: ", style="bold green")
        fix.append(d["fix"], style="green")
        body.append(fix)
        if details.get("url"):
            body.append(Text(details["url"], style="dim underline"))
        console.print(Panel(Group(*body), title=title, title_align="left", border_style=style))
    if len(diags) > limit:
        console.print(f"[dim]… {len(diags) - limit} more (use --limit or --json)[/]")

