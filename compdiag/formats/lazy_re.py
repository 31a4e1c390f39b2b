"""Regular expressions compiled at their first use, not when their module is imported.

compdiag's ingest and capture modules hold about a hundred module-level patterns; a capture
imports them all at its start in the user's program (counted as capture's own time, issue 34),
and a run of a typical program uses about a third of them (the failure, DDP, CUDA-graph and
compiled-autograd parsers wait for records most programs never emit). Compiling them all
cost ~25 ms of CPU a run."""

from __future__ import annotations

import re
from typing import Any

# what a compiled pattern is asked for; all of it is kept on the instance at the first use
_ATTRS = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split",
          "pattern", "flags", "groups", "groupindex", "scanner")


class LazyPattern:
    """re.compile(pattern, flags) when a method or attribute is first asked for; the compiled
    pattern's bound methods are then the instance's own attributes, so later calls cost what
    a compiled pattern's cost (no __getattr__ on the way)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_args":
            raise AttributeError(name)
        compiled = re.compile(*self._args)
        for attr in _ATTRS:
            self.__dict__[attr] = getattr(compiled, attr)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self._args[0]!r}, {self._args[1]!r})"


def compile(pattern: str, flags: int = 0) -> Any:  # noqa: A001 - re.compile's name, on purpose
    """A pattern compiled when first used (the module doc)."""
    return LazyPattern(pattern, flags)
