"""Environment variables the program sets or deletes after a compile (issue 29 §4: where bugs
hide). Dynamo traces a read of `os.environ` (`os.environ.get("USE_TTA", "0")`, `os.getenv`)
inside compiled code into a constant; it guards the value of a variable that was set then,
but not the absence of one that was not, so a variable the program sets after the compile
never reaches the graph: no recompile, no warning (probes44i se_env_tta_flag_stale, torch
2.13: the compiled evaluation kept running without the test-time augmentation the variable
turned on; a variable that was set and changes recompiles).

Capture replaces the item set and delete of os.environ's class and keeps each change made by
the user's code once a graph was compiled (past os.environ's own `update`, `setdefault`,
`pop`, which call them): an `environ_set` record with the variable, its new value's repr (None
for a delete) and the line. Whether compiled code read that variable is the analysis' to say
(analyses/environ_reads.py). The wrapper reads module globals only, never a closure, and
Dynamo never compiles its frame (as capture/module_writes.py's)."""

from __future__ import annotations

import os
from typing import Any, Callable

ENVIRON_SET = "environ_set"  # the record's kind
# os.environ's own methods that set or delete through the item methods (frozen modules on
# Python 3.11: `<frozen _collections_abc>`)
_ENVIRON_FILES = ("/os.py", "/_collections_abc.py", "<frozen os>", "<frozen _collections_abc>")
_ORIGINALS: dict[str, Any] = {}
_IS_COMPILING: Any = None
_STATE: dict[str, Any] = {}


def install(capture: Any, graphs: Callable[[], int],
            is_user_file: Callable[[str], bool]) -> None:
    """`graphs()`: the number of graphs compiled so far in this process."""
    global _IS_COMPILING
    from torch.compiler import is_compiling

    from compdiag.capture.module_writes import skip_in_dynamo

    _IS_COMPILING = is_compiling
    _STATE.update(capture=capture, graphs=graphs, is_user_file=is_user_file)
    cls = type(os.environ)
    if getattr(cls.__setitem__, "_compdiag", False):
        return
    for name, wrapper in (("__setitem__", _setitem), ("__delitem__", _delitem)):
        _ORIGINALS[name] = getattr(cls, name)
        skip_in_dynamo(wrapper)
        wrapper._compdiag = True  # type: ignore[attr-defined]
        wrapper.__wrapped__ = _ORIGINALS[name]  # type: ignore[attr-defined]
        setattr(cls, name, wrapper)


def _setitem(self: Any, key: Any, value: Any) -> None:
    _ORIGINALS["__setitem__"](self, key, value)
    if self is os.environ and not _IS_COMPILING():
        _record(key, repr(value)[:200])


def _delitem(self: Any, key: Any) -> None:
    _ORIGINALS["__delitem__"](self, key)
    if self is os.environ and not _IS_COMPILING():
        _record(key, None)


def _record(key: Any, value: str | None) -> None:
    try:  # fail open: the change is made; bookkeeping never reaches the program
        from compdiag.capture.config_sets import user_frame

        capture = _STATE.get("capture")
        if capture is None or capture.paused_depth or _STATE["graphs"]() <= 0:
            return
        # the caller of the wrapper (three frames up from user_frame's own), past
        # os.environ's own methods
        call = user_frame(_STATE["is_user_file"], skip=_ENVIRON_FILES, depth=3)
        if call is None:
            return
        capture.guarded("environ set", capture.ing.event, ENVIRON_SET, None,
                        {"module": "os.environ", "key": str(key)[:200], "value": value,
                         "call": call}, None)
    except Exception:  # noqa: BLE001, S110
        pass
