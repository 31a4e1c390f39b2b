"""The TUI's widgets, one per private module (Textual's layout), re-exported here lazily
(PEP 562), so the first screen imports only the widgets it shows."""

from __future__ import annotations

import importlib
import typing

_MODULES = {
    "ArtifactView": "_artifact_view", "CodeView": "_code_view",
    "CompileSummary": "_compile_summary", "CompileTree": "_compile_tree",
    "DiagnosesPanel": "_diagnoses_panel", "JobTable": "_job_table",
    "KernelView": "_kernel_view", "KeyBar": "_key_bar",
    "LimitersList": "_limiters_list", "LineList": "_line_list", "PerfBars": "_perf_bars",
    "PerfGraphs": "_perf_graphs", "PerfModes": "_perf_modes", "PerfSummary": "_perf_summary",
    "RecordsView": "_records_view", "RowsTable": "_rows_table",
    "RunsTable": "_runs_table", "TabStrip": "_tab_strip", "TimingChart": "_timing_chart",
}

__all__ = sorted(_MODULES)

if typing.TYPE_CHECKING:
    from compdiag_tui.widgets._artifact_view import ArtifactView
    from compdiag_tui.widgets._code_view import CodeView
    from compdiag_tui.widgets._compile_summary import CompileSummary
    from compdiag_tui.widgets._compile_tree import CompileTree
    from compdiag_tui.widgets._diagnoses_panel import DiagnosesPanel
    from compdiag_tui.widgets._job_table import JobTable
    from compdiag_tui.widgets._kernel_view import KernelView
    from compdiag_tui.widgets._key_bar import KeyBar
    from compdiag_tui.widgets._limiters_list import LimitersList
    from compdiag_tui.widgets._line_list import LineList
    from compdiag_tui.widgets._perf_bars import PerfBars
    from compdiag_tui.widgets._perf_graphs import PerfGraphs
    from compdiag_tui.widgets._perf_modes import PerfModes
    from compdiag_tui.widgets._perf_summary import PerfSummary
    from compdiag_tui.widgets._records_view import RecordsView
    from compdiag_tui.widgets._rows_table import RowsTable
    from compdiag_tui.widgets._runs_table import RunsTable
    from compdiag_tui.widgets._tab_strip import TabStrip
    from compdiag_tui.widgets._timing_chart import TimingChart


def __getattr__(name: str) -> typing.Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
