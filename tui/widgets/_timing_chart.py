"""TimingChart: one horizontal bar per compile stage, scaled to the longest."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

# Stages in pipeline order; anything else the store holds follows, then `total`.
STAGE_ORDER = ("dynamo", "pre_grad_passes", "aot", "joint_graph_passes", "post_grad_passes",
               "backend", "inductor", "inductor_codegen", "kernel_compile", "autotune")
BAR_COLOURS = ("cyan", "green", "magenta", "yellow", "blue", "red")


class TimingChart(Static):
    """Set `times` ({stage: seconds})."""

    DEFAULT_CSS = """
    TimingChart { height: auto; padding: 1 2; }
    """

    times: reactive[dict[str, float]] = reactive(dict, always_update=True)

    def watch_times(self) -> None:
        self.update(self._render_chart())

    def on_resize(self) -> None:
        self.update(self._render_chart())

    def ordered(self) -> list[tuple[str, float]]:
        times = self.times or {}
        order = [s for s in STAGE_ORDER if s in times]
        order += sorted(s for s in times if s not in STAGE_ORDER and s != "total")
        if "total" in times:
            order.append("total")
        return [(s, float(times[s])) for s in order]

    def _render_chart(self) -> Table | Text:
        rows = self.ordered()
        if not rows:
            return Text("no stage timings recorded for this compile id "
                        "(compilation_metrics did not arrive: a graph break restart or a crash)",
                        "dim italic")
        longest = max(v for _, v in rows) or 1.0
        bar_width = max(10, self.size.width - 40)
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", style="bold")
        table.add_column()
        table.add_column(justify="right")
        for i, (stage, seconds) in enumerate(rows):
            cells = seconds / longest * bar_width
            full = int(cells)
            bar = "█" * full + ("▌" if cells - full >= 0.5 else "")
            colour = "white" if stage == "total" else BAR_COLOURS[i % len(BAR_COLOURS)]
            table.add_row(stage, Text(bar or "▏", colour), f"{seconds:.3f} s")
        return table
