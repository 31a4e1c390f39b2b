"""compdiag's Textual TUI (`compdiag tui`); the folder tui/ installs as `compdiag_tui`."""

from compdiag_tui.app import CompdiagApp

__all__ = ["CompdiagApp"]
