"""KernelView: a compile id's kernels; the selected one's source, syntax-highlighted, with the
FX nodes it fuses and the user lines it came from. Sources load when a kernel is selected."""

from __future__ import annotations

import re
from typing import Any, Callable

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from compdiag_tui.widgets._code_view import CodeView

OUTPUT_CODE = "__output_code__"


class KernelView(Horizontal):
    """Set `kernels` (rows without source); `source_loader(kernel_id)` and `output_loader()`
    fetch payloads on selection."""

    DEFAULT_CSS = """
    KernelView { height: 1fr; }
    KernelView > OptionList { width: 34; height: 1fr; }
    KernelView > Vertical { width: 1fr; }
    KernelView .kernel-header { height: 6; padding: 0 1; background: $boost; }
    """

    kernels: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)

    class KernelSelected(Message):
        def __init__(self, kernel: dict[str, Any] | None) -> None:
            self.kernel = kernel
            super().__init__()

    def __init__(self, source_loader: Callable[[int], "str | None"],
                 output_loader: Callable[[], "str | None"], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source_loader = source_loader
        self.output_loader = output_loader
        self.current: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield OptionList()
        with Vertical():
            yield Static(classes="kernel-header")
            yield CodeView(language="python", placeholder="no kernel selected")

    def _options(self) -> OptionList | None:
        try:
            return self.query_one(OptionList)
        except NoMatches:   # not composed yet: on_mount fills it
            return None

    @property
    def code_view(self) -> CodeView:
        return self.query_one(CodeView)

    def watch_kernels(self, kernels: list[dict[str, Any]]) -> None:
        options = self._options()
        if options is None:
            return
        options.clear_options()
        for k in kernels:
            options.add_option(Option(Text.assemble((k["name"], "bold"), " ",
                                                    (k["backend"], "dim")), id=str(k["id"])))
        options.add_option(Option(Text("(whole output code)", "italic"), id=OUTPUT_CODE))
        options.highlighted = 0

    def on_mount(self) -> None:
        self.watch_kernels(self.kernels)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.show(event.option.id)

    def show(self, option_id: str | None) -> None:
        header = self.query_one(".kernel-header", Static)
        view = self.code_view
        if option_id == OUTPUT_CODE:
            self.current = None
            header.update(Text("the module Inductor generated for this compile id "
                               "(inductor_output_code)", "dim"), layout=False)
            view.language = "python"
            view.code = self.output_loader() or ""
            view.placeholder = "no inductor_output_code record for this compile id"
            view.marks = frozenset()
            self.post_message(self.KernelSelected(None))
            return
        kernel = next((k for k in self.kernels if str(k["id"]) == option_id), None)
        self.current = kernel
        if kernel is None:
            return
        header.update(kernel_header(kernel), layout=False)   # fixed height: no relayout
        view.language = "cpp" if kernel["backend"] == "cpp" else "python"
        view.code = self.source_loader(kernel["id"]) or ""
        view.placeholder = "no source recorded (an extern kernel)"
        view.marks = kernel_marks(view.lines, kernel)
        self.post_message(self.KernelSelected(kernel))


def kernel_marks(lines: list[str], k: dict[str, Any]) -> frozenset[int]:
    """Lines of a kernel that compute its fused ops or name its FX nodes (Inductor's
    'Source Nodes' comments, `tmp = x.sin()` in C++, `tl_math.sin` in Triton)."""
    words = {str(w) for w in (k.get("fused_ops") or []) + (k.get("fx_nodes") or []) if w}
    if not words:
        return frozenset()
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, sorted(words))) + r")(?![\w])")
    return frozenset(i for i, line in enumerate(lines)
                     if pattern.search(line) or "Source Nodes" in line or "Source node" in line)


def kernel_header(k: dict[str, Any]) -> Group:
    parts = [Text.assemble((k["name"], "bold"), "  ", (k["backend"], "cyan"))]
    if k.get("fx_nodes"):
        parts.append(Text.assemble(("FX nodes: ", "dim"), ", ".join(map(str, k["fx_nodes"]))))
    if k.get("fused_ops"):
        parts.append(Text.assemble(("fused ops: ", "dim"), ", ".join(map(str, k["fused_ops"]))))
    for line in k.get("user_lines") or []:
        parts.append(Text.assemble(("user: ", "dim"), (str(line), "yellow")))
    return Group(*parts)
