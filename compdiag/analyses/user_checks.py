"""A user's own accuracy check that failed (an assert, or a raise right after a comparison):
how the program kind tells it from any other exception, from the source line it surfaced at
and the few lines above it."""

from __future__ import annotations

import re
from typing import Any

# What a user's own accuracy check looks like: the exception types it raises, and the
# comparisons (or assert helpers) a check line or the `if` above a `raise` makes.
CHECK_TYPES = ("AssertionError",)
COMPARISON = re.compile(r"\b(?:allclose|isclose|assert\w*|equal|same)\s*\(|[=!]=|"
                        r"(?<![-=<>])[<>]=?(?![<>])")
RAISE = re.compile(r"^\s*raise\b")
LOOK_BACK = 3  # lines above a `raise` searched for the comparison that led to it


def _source(ctx: Any, frame: dict[str, Any] | None) -> str:
    if not frame or not frame.get("filename") or not frame.get("lineno"):
        return ""
    return (frame.get("line") or ctx.source_line(frame["filename"], int(frame["lineno"]))
            or "").strip()


def user_check(ctx: Any, exc: dict[str, Any], surfaced: dict[str, Any] | None) -> str | None:
    """The source of the comparison a failed check made, or None when it is not a check."""
    line = _source(ctx, surfaced)
    if not line:
        return None
    if exc.get("exc_type") in CHECK_TYPES and (line.startswith("assert") or
                                               COMPARISON.search(line)):
        return line
    if RAISE.match(line) and surfaced:
        for back in range(1, LOOK_BACK + 1):
            above = ctx.source_line(surfaced["filename"], int(surfaced["lineno"]) - back) or ""
            if above.strip() and COMPARISON.search(above):
                return f"{above.strip()} … {line}"
    return None
