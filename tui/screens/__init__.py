"""The TUI's screens: runs list -> compile tree -> a compile id's stage tabs; perf report;
source; search; the diff of two runs; a job's ranks side by side.
Re-exported lazily (PEP 562): the first screen does not import the others."""

from __future__ import annotations

import importlib
import typing

_MODULES = {
    "CompileScreen": "_compile", "tab_for_kind": "_compile", "RunScreen": "_run",
    "RunsScreen": "_runs", "SearchScreen": "_search", "SourceScreen": "_source",
    "PerfScreen": "_perf", "DiffScreen": "_diff", "JobScreen": "_job",
}

__all__ = sorted(_MODULES)

if typing.TYPE_CHECKING:
    from compdiag_tui.screens._compile import CompileScreen, tab_for_kind
    from compdiag_tui.screens._diff import DiffScreen
    from compdiag_tui.screens._job import JobScreen
    from compdiag_tui.screens._perf import PerfScreen
    from compdiag_tui.screens._run import RunScreen
    from compdiag_tui.screens._runs import RunsScreen
    from compdiag_tui.screens._search import SearchScreen
    from compdiag_tui.screens._source import SourceScreen


def __getattr__(name: str) -> typing.Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
