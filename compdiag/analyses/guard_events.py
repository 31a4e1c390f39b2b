"""Which of a recompile group's failures says where the guarded value is read: torch ties
each failure to a line, and a group's first failure can be another cause's (a size of 1
specialised in library code), while the rest name the line that keeps failing (probes33e
iwae_k_sweep: `k == 1` at distributions/utils.py, then `k == 2, 5, ...` at `math.log(k)`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from compdiag.formats.user_code import is_user_file


def usual_read(ctx: Any, evs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last event read at the user line most of EVS were read at; None where none was."""
    mine = [e for e in evs if e.get("loc_filename") and is_user_file(
        ctx.resolve(e["loc_filename"]))]
    counts = Counter((e["loc_filename"], e["loc_lineno"]) for e in mine)
    return max(reversed(mine), key=lambda e: counts[(e["loc_filename"], e["loc_lineno"])],
               default=None)


def loc_of(event: dict[str, Any] | None) -> dict[str, Any]:
    return {k: event[k] for k in ("loc_filename", "loc_lineno", "loc_line")} if event else {}
