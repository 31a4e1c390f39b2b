"""`escape` without Textual's 100 ms wait.

Textual's Linux driver reads keys on a thread that waits in `select(0.1)`, and its parser
only decides that a lone ESC is the `escape` key (not the start of an escape sequence) when
that wait returns: whatever ESCDELAY says below 100 ms, `escape` answers up to 100 ms late.
`quick_escape()` makes that thread's wait at most ESCAPE_POLL_S, so the parser's own timeout
(ESCDELAY, Textual's default 100 ms unless the user set it; set here to 10 ms when unset) is
the delay. The thread then wakes 100 times a second while idle: a few microseconds each.

Only `compdiag tui` calls it, before the app starts; on a Textual whose driver no longer
waits this way it changes nothing (fail-open: the app runs as Textual ships it)."""

from __future__ import annotations

import os
import selectors
import types

ESCAPE_POLL_S = 0.01
ESCAPE_DELAY_MS = 10   # a terminal's key sequences arrive in one write; vim's usual ttimeoutlen


class _PollingSelector(selectors.SelectSelector):
    def select(self, timeout: float | None = None):  # type: ignore[override]
        if timeout is None or timeout > ESCAPE_POLL_S:
            timeout = ESCAPE_POLL_S
        return super().select(timeout)


def quick_escape() -> bool:
    """Patch the driver's selector (before Textual is imported: ESCDELAY is read then).
    True when the driver was patched."""
    os.environ.setdefault("ESCDELAY", str(ESCAPE_DELAY_MS))
    try:
        from textual.drivers import linux_driver
    except Exception:  # noqa: BLE001 - not Linux, or another Textual: leave it alone
        return False
    real = getattr(linux_driver, "selectors", None)
    if real is not selectors or not hasattr(linux_driver.LinuxDriver, "run_input_thread"):
        return False
    shim = types.ModuleType("selectors")
    shim.__dict__.update(vars(selectors))
    shim.SelectSelector = _PollingSelector  # type: ignore[attr-defined]
    linux_driver.selectors = shim  # type: ignore[attr-defined]
    return True
