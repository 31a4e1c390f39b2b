"""compdiag's Textual TUI (`compdiag tui`); the folder tui/ installs as `compdiag_tui`.

`CompdiagApp` is imported on first use, so helpers such as `python -m compdiag_tui.diagnoses`
(the diagnoses child process) do not load Textual."""

from __future__ import annotations

import typing

__all__ = ["CompdiagApp"]

if typing.TYPE_CHECKING:
    from compdiag_tui.app import CompdiagApp


def __getattr__(name: str) -> typing.Any:
    if name == "CompdiagApp":
        from compdiag_tui.app import CompdiagApp

        return CompdiagApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
