"""The TUI's screens: runs list -> compile tree -> a compile id's stage tabs; source; search."""

from compdiag_tui.screens._compile import CompileScreen, tab_for_kind
from compdiag_tui.screens._run import RunScreen
from compdiag_tui.screens._runs import RunsScreen
from compdiag_tui.screens._search import SearchScreen
from compdiag_tui.screens._source import SourceScreen

__all__ = ["CompileScreen", "RunScreen", "RunsScreen", "SearchScreen", "SourceScreen",
           "tab_for_kind"]
