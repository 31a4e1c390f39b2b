"""LimitersList: what limits a run's speed-up (`compdiag perf`'s limiters, most impact first),
one line each; moving posts `LimiterHighlighted`, enter posts `LimiterChosen`.
`limiter_detail` words the highlighted one in full (reason, evidence, fix)."""

from __future__ import annotations

from functools import partial
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive

from compdiag_tui.widgets._line_list import LineList

KIND_STYLE = {"graph_break": "yellow", "recompile": "magenta", "fallback": "red",
              "fusion_miss": "blue", "launch_overhead": "cyan", "cudagraph_skipped": "cyan",
              "memory_bound": "bright_blue", "outside_graphs": "bright_magenta",
              "tf32_off": "bold yellow", "cudagraph_rerecord": "cyan",
              "cudagraph_partitioned": "cyan"}


def where(lim: dict[str, Any]) -> str:
    frame = lim.get("user_frame") or {}
    return f"{frame['filename']}:{frame.get('lineno')}" if frame.get("filename") else ""


def limiter_label(i: int, lim: dict[str, Any]) -> Text:
    kind = str(lim.get("kind") or "?")
    impact = lim.get("impact")
    text = Text.assemble(f"{i:>2}. ", (f"{kind.replace('_', ' '):<18}", KIND_STYLE.get(kind, "")),
                         (f"{impact:>4.0%}" if isinstance(impact, (int, float)) else "   ?",
                          "bold"), (f" {lim.get('basis') or '':<10} ", "dim"))
    text.append(" ".join(str(lim.get("reason") or "").split())[:150])
    if where(lim):
        text.append(f"  {where(lim)}", "dim")
    return text


def limiter_detail(lim: dict[str, Any] | None) -> Group | Text:
    if not lim:
        return Text("")
    kind = str(lim.get("kind") or "?")
    head = Text.assemble((kind.replace("_", " "), KIND_STYLE.get(kind, "bold")), " ")
    if isinstance(lim.get("impact"), (int, float)):
        head.append(f"{lim['impact']:.0%} of the compiled time ", "bold")
    head.append(f"({lim.get('basis') or '?'})", "dim")
    if lim.get("compile_ids"):
        cids = [str(c) for c in lim["compile_ids"]]
        head.append(f"  graphs {', '.join(cids[:6])}{'…' if len(cids) > 6 else ''}", "dim")
    parts: list[Text] = [head, Text(" ".join(str(lim.get("reason") or "").split()))]
    if lim.get("evidence"):
        parts.append(Text.assemble(("evidence: ", "dim"), str(lim["evidence"])))
    if lim.get("fix"):
        parts.append(Text.assemble(("fix: ", "bold green"), str(lim["fix"])))
    if where(lim):
        parts.append(Text(f"at {where(lim)} (enter opens it)", "dim"))
    return Group(*parts)


class LimitersList(LineList):
    """Set `limiters` (the report's, most impact first)."""

    DEFAULT_CSS = """
    LimitersList { height: 1; }
    """

    limiters: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)

    class LimiterHighlighted(Message):
        def __init__(self, limiter: dict[str, Any]) -> None:
            self.limiter = limiter
            super().__init__()

    class LimiterChosen(Message):
        def __init__(self, limiter: dict[str, Any]) -> None:
            self.limiter = limiter
            super().__init__()

    def watch_limiters(self, limiters: list[dict[str, Any]]) -> None:
        if not limiters:
            self.set_rows([(Text(" nothing recorded limits it (no graph breaks, recompiles, "
                                 "fallbacks, fusion misses or dispatch-bound graphs)", "green"),
                            None)], cursor=-1)
            self.styles.height = 1
            return
        self.set_rows([(partial(limiter_label, i, lim), i)
                       for i, lim in enumerate(limiters, 1)], cursor=0)
        self.styles.height = min(len(limiters), 10)
        self.post_message(self.LimiterHighlighted(limiters[0]))

    def limiter(self, data: Any) -> dict[str, Any] | None:
        if isinstance(data, int) and 1 <= data <= len(self.limiters):
            return self.limiters[data - 1]
        return None

    def _forward(self, event: LineList.Highlighted | LineList.Chosen,
                 message: type[LimiterHighlighted] | type[LimiterChosen]) -> None:
        if event.widget is not self:
            return
        event.stop()
        lim = self.limiter(event.data)
        if lim is not None:
            self.post_message(message(lim))

    def on_line_list_highlighted(self, event: LineList.Highlighted) -> None:
        self._forward(event, self.LimiterHighlighted)

    def on_line_list_chosen(self, event: LineList.Chosen) -> None:
        self._forward(event, self.LimiterChosen)
