"""Text helpers every parser family shares: a traceback frame line, a message's first line, a
JSON int that is not a bool. (Re-exported by ingest/parsers.py.)"""

from __future__ import annotations

from typing import Any

from compdiag.formats import lazy_re

TB_FRAME = lazy_re.compile(r'^\s*File "(.+?)", line (\d+), in (.+)$')


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON true/false must not become a compile id)."""
    return isinstance(value, int) and not isinstance(value, bool)


def first_line(text: str | None, limit: int = 500) -> str:
    if not text:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]
