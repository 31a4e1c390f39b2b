"""The TUI's widgets, one per private module (Textual's layout), re-exported here."""

from compdiag_tui.widgets._artifact_view import ArtifactView
from compdiag_tui.widgets._code_view import CodeView
from compdiag_tui.widgets._compile_summary import CompileSummary
from compdiag_tui.widgets._compile_tree import CompileTree
from compdiag_tui.widgets._diagnoses_panel import DiagnosesPanel
from compdiag_tui.widgets._kernel_view import KernelView
from compdiag_tui.widgets._key_bar import KeyBar
from compdiag_tui.widgets._line_list import LineList
from compdiag_tui.widgets._records_view import RecordsView
from compdiag_tui.widgets._rows_table import RowsTable
from compdiag_tui.widgets._runs_table import RunsTable
from compdiag_tui.widgets._tab_strip import TabStrip
from compdiag_tui.widgets._timing_chart import TimingChart

__all__ = ["ArtifactView", "CodeView", "CompileSummary", "CompileTree", "DiagnosesPanel",
           "KernelView", "KeyBar", "LineList", "RecordsView", "RowsTable", "RunsTable",
           "TabStrip", "TimingChart"]
