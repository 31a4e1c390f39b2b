"""A message's first non-blank line: the line a one-line summary of torch's or the program's
text starts from (an exception's message, a native abort's stderr)."""

from __future__ import annotations


def first_nonblank(text: str | None) -> str:
    """The first line of `text` with anything but whitespace, stripped; "" when none."""
    return next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")
