"""Which torch versions compdiag was tested on. A newer torch is not refused (pip must never
downgrade the user's torch for compdiag): `compdiag run` says so in one line, and capture reads
its records defensively, keeping what it does not understand raw in the store."""

from __future__ import annotations

import re

OLDEST = (2, 11)
NEWEST_TESTED = (2, 15)


def release(version: str | None) -> tuple[int, int] | None:
    """(major, minor) of a torch version string ('2.15.0+cu130' -> (2, 15))."""
    m = re.match(r"^(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def note(version: str | None) -> str | None:
    """The one line `compdiag run` prints for a torch outside the tested range, else None."""
    rel = release(version)
    if rel is None:
        return None
    if rel > NEWEST_TESTED:
        return (f"torch {version} is newer than this compdiag was tested on (up to "
                f"{NEWEST_TESTED[0]}.{NEWEST_TESTED[1]}): capture keeps every record, and what "
                "it cannot read yet stays raw in the store")
    if rel < OLDEST:
        return (f"torch {version} is older than compdiag supports ({OLDEST[0]}.{OLDEST[1]} and "
                "newer): capture may miss what this torch does not emit")
    return None
