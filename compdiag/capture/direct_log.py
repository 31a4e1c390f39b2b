"""torch's records handed to compdiag's handler without logging's LogRecord (issue 34).

torch ends every structured-trace record with `trace_log.debug("", extra={"metadata": ...,
"payload": ...}, stacklevel=2)`, and writes each artifact-logger line (fusion decisions and
candidate listings, perf hints) with `log.debug(fmt, *args)`. Logging then walks the stack
to find the caller, builds a LogRecord (the time, the thread's and process's names, the path
split into module and file name) and calls each handler under its lock: about 6 µs a record
here, for a handler that reads two or three attributes, hundreds of records a compile. It is
work torch does only because compdiag listens (nobody else does: the trace logger has no
other handler and does not propagate), so it is counted as capture's cost.

While compdiag's handler is a logger's only one, the logger not propagating, with no filter, logging not disabled and
the level letting DEBUG through, `debug` on that logger hands the record straight to the
handler as a `DirectRecord` (the attributes compdiag reads). Anything else (TORCH_TRACE's
own handler added, the user's TORCH_LOGS, a filter, a handler of theirs on the logger, any
other keyword) goes through logging's own path, as without compdiag.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

_DEBUG = logging.DEBUG


class DirectRecord:
    """What compdiag's handlers read of a LogRecord, for a record that never became one."""

    __slots__ = ("name", "msg", "args", "metadata", "payload")
    levelname = "DEBUG"
    levelno = _DEBUG

    def __init__(self, name: str, msg: Any, args: tuple, extra: dict[str, Any] | None) -> None:
        if len(args) == 1 and isinstance(args[0], Mapping) and args[0]:
            args = args[0]  # as LogRecord does: `log.debug("%(x)s", {"x": 1})`
        self.name, self.msg, self.args = name, msg, args
        extra = extra or {}
        self.metadata = extra.get("metadata")
        self.payload = extra.get("payload")

    def getMessage(self) -> str:  # noqa: N802 - logging.LogRecord's name
        msg = str(self.msg)
        return msg % self.args if self.args else msg


def install(log: logging.Logger, handler: logging.Handler) -> None:
    """Route `log.debug` straight to `handler` while it is the logger's only listener (the
    module doc); idempotent for one handler. A route left for an earlier handler (a capture
    installed before in the same process and never uninstalled) is replaced, not kept: it
    would send every record down logging's own path for the rest of the process."""
    installed = vars(log).get("debug")
    if getattr(installed, "_compdiag", False):
        if getattr(installed, "_handler", None) is handler:
            return
        del log.debug
    original = log.debug  # the class's method, bound: logging's own path
    name = log.name
    handlers_len = list.__len__  # not len(): the trace timer's handler list counts that call

    def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
        handlers = log.handlers
        if (handlers_len(handlers) == 1 and handlers[0] is handler and not log.propagate
                and not log.filters and not handler.filters and log.isEnabledFor(_DEBUG)
                and handler.level <= _DEBUG and _plain(kwargs)):
            try:
                handler.emit(DirectRecord(name, msg, args, kwargs.get("extra")))
            except Exception:  # noqa: BLE001 - compdiag's handlers fail open themselves;
                pass  # this only keeps the program's logging call from raising
            return
        original(msg, *args, **kwargs)

    debug._compdiag = True  # type: ignore[attr-defined]
    debug._handler = handler  # type: ignore[attr-defined]
    debug.__wrapped__ = original  # type: ignore[attr-defined]
    log.debug = debug  # type: ignore[method-assign]


def uninstall(log: logging.Logger) -> None:
    if getattr(vars(log).get("debug"), "_compdiag", False):
        del log.debug


def _plain(kwargs: dict[str, Any]) -> bool:
    """Only the keywords torch passes (no exc_info or stack_info to render)."""
    for key in kwargs:
        if key != "extra" and key != "stacklevel":
            return False
    extra = kwargs.get("extra")
    return extra is None or type(extra) is dict
