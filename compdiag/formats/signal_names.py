"""A signal's name for a number (11 -> SIGSEGV), one spelling for every place that says how a
process ended: capture's rank launcher, the minifier's child, the program and divergence
kinds."""

from __future__ import annotations

import signal


def signal_name(num: int | None) -> str:
    """SIGSEGV for 11; "signal N" for a number this platform has no name for."""
    try:
        return signal.Signals(int(num or 0)).name
    except ValueError:
        return f"signal {num}"


def killed_by(returncode: int) -> str:
    """The signal a process was killed by, from its return code: -11 (Popen) or 139 (a
    shell's 128 + N)."""
    return signal_name(-returncode if returncode < 0 else returncode - 128)
