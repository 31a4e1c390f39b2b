"""CompileSummary: what happened to one compile id, from cheap per-compile rows (no payloads)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from compdiag_tui.model import STATUS_STYLE, STATUS_WORD, CompileInfo


class CompileSummary(Static):
    """Set `info` (a CompileInfo) and `details` (Reader rows for that compile id)."""

    DEFAULT_CSS = """
    CompileSummary { height: auto; padding: 0 1; }
    CompileSummary.fixed { height: 1fr; }
    """

    info: reactive[CompileInfo | None] = reactive(None, always_update=True)
    details: reactive[dict[str, Any] | None] = reactive(None, always_update=True)

    def watch_details(self) -> None:
        # A fixed-height summary (the run screen's) repaints without a layout pass.
        self.update(self.render_summary(), layout=not self.has_class("fixed"))

    def watch_info(self) -> None:
        self.update(self.render_summary(), layout=not self.has_class("fixed"))

    def render_summary(self) -> Group | Text:
        c, d = self.info, self.details
        if c is None:
            return Text("select a compile id (↑/↓); enter opens its stages", "dim italic")
        d = d or {}
        status = c.display_status
        parts: list[Any] = [Text.assemble(
            ("compile ", "dim"), (c.compile_id, "bold"), "  ",
            (STATUS_WORD[status], STATUS_STYLE[status]), "  ",
            (f"{c.co_name or '?'}", "bold cyan"), ("  at ", "dim"),
            f"{c.filename}:{c.lineno}", ("  attempt ", "dim"), str(c.attempt))]
        times = c.stage_times
        if times:
            parts.append(Text("  ".join(f"{k} {v:.3f}s" for k, v in times.items()), "dim"))
        for g in d.get("graph_breaks", []):
            parts.append(Text.assemble(("graph break ", STATUS_STYLE["graph_break"]),
                                       (f"{g.get('gb_code') or ''} ", "bold"), g["reason"]))
            if g.get("filename"):
                parts.append(Text(f"    at {g['filename']}:{g['lineno']}  {g.get('line') or ''}",
                                  "dim"))
            for h in g.get("hints") or []:
                parts.append(Text(f"    hint: {h}", "italic"))
        for r in d.get("recompiles", []):
            parts.append(Text.assemble(("recompile ", STATUS_STYLE["recompile"]), r["reason"]))
            if r.get("guard"):
                parts.append(Text(f"    failed guard: {r['guard']}", "dim"))
        for f in d.get("failures", []):
            parts.append(Text.assemble(("failure ", STATUS_STYLE["failed"]),
                                       (f"[{f['stage']}] ", "bold"),
                                       f"{f.get('exc_type') or ''}: {f.get('message') or ''}"))
            if f.get("filename"):
                parts.append(Text(f"    at {f['filename']}:{f['lineno']}", "dim"))
        kernels = d.get("kernels", [])
        if kernels:
            names = ", ".join(k["name"] for k in kernels[:6])
            more = f" (+{len(kernels) - 6})" if len(kernels) > 6 else ""
            parts.append(Text(f"kernels: {names}{more}"))
        for cg in d.get("cudagraphs", []):
            parts.append(Text("cudagraphs applied", "green") if cg["applied"]
                         else Text(f"cudagraphs skipped: {cg.get('reason')}", "red"))
        recs = d.get("cudagraph_recordings") or []
        if recs:
            sizes = ", ".join(dict.fromkeys(
                " ".join("[" + ",".join(map(str, x)) + "]" for x in r["sizes"]) for r in recs))
            parts.append(Text(f"cudagraphs recorded {len(recs)}x" +
                              (f" for sizes {sizes}" if sizes else ""),
                              "yellow" if len(recs) > 1 else "green"))
        for p in d.get("cudagraph_partitions") or []:
            if (p.get("non_cudagraphable") or 0) > 0:
                parts.append(Text(f"cudagraphs partitioned: {p.get('cudagraphable')} graphed, "
                                  f"{p.get('non_cudagraphable')} left out", "yellow"))
        kinds = d.get("kinds") or {}
        if kinds:
            parts.append(Text(f"{sum(kinds.values())} records of {len(kinds)} kinds", "dim"))
        return Group(*parts)
