"""PerfModes: `compdiag perf --modes`' comparison (one row per mode: compile time, steady-state
time, speed-up over eager with its 95% interval, or with --repeat the range over its
processes and each process' speed-up, peak memory, CUDA graphs); enter on a row posts
`RowsTable.RowChosen` (its `run`). `recommendation_text` words the recommendation."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from compdiag_tui.perf_format import ci_text, compile_text, fmt_time, mib, ratio_text, times_x
from compdiag_tui.widgets._rows_table import RowsTable


def _cudagraphs(r: dict[str, Any]) -> str:
    cg = r.get("cudagraphs") or {}
    if not (cg.get("applied") or cg.get("skipped")):
        return "-"
    return f"{cg.get('applied', 0)} applied, {cg.get('skipped', 0)} skipped"


def _speedup(r: dict[str, Any]) -> Text:
    text = ratio_text({"ratio": r.get("speedup"), "verdict": r.get("verdict")})
    if r.get("speedup_lo") is not None:
        text.append(f" [{ci_text(r['speedup_lo'], r.get('speedup_hi'))}]", "dim")
    if r.get("processes"):  # --repeat: the median process, the range spans them all
        text.append(" per process " + ", ".join(times_x(x) for x in r["processes"]), "dim")
    return text


def columns(current_run: int | None) -> list[tuple[str, Any]]:
    def mode(r: dict[str, Any]) -> Text:
        if r.get("run") == current_run:
            return Text.assemble((str(r.get("mode")), "bold"), (" ◂", "dim"))
        return Text(str(r.get("mode")))

    return [("mode", mode), ("run", lambda r: r.get("run")),
            ("compile", compile_text),
            ("steady state", lambda r: fmt_time(r.get("steady_s"))),
            ("speed-up over eager [95% CI]", _speedup),
            ("measured on", lambda r: r.get("basis") or "compiled graphs"),
            ("graphs only", lambda r: times_x(r.get("graphs_speedup"))),
            ("peak mem", lambda r: mib(r.get("peak_cuda_bytes") or r.get("peak_rss_bytes"))),
            ("CUDA graphs", _cudagraphs)]


def recommendation_text(modes: dict[str, Any] | None) -> Group | Text:
    rec = (modes or {}).get("recommendation") or {}
    if not rec:
        return Text("")
    parts = [Text.assemble(("recommendation: ", "bold"),
                           (str(rec.get("mode") or "none"), "bold green" if rec.get("mode")
                            else "dim"))]
    parts += [Text(f"  - {reason}") for reason in rec.get("reasons") or []]
    parts += [Text(f"  note: {caveat}", "dim") for caveat in rec.get("caveats") or []]
    return Group(*parts)


class PerfModes(RowsTable):
    """Set `rows_data` to the document's `modes.rows`; `current_run`'s mode is marked ◂."""

    DEFAULT_CSS = """
    PerfModes { height: auto; max-height: 8; }
    """

    def __init__(self, current_run: int | None = None, *, id: str | None = None) -> None:
        super().__init__(columns(current_run), empty_text="one mode only", id=id)
