"""Where a failure's cause is named by other code than the line torch points at: a handler of
the program's that compiled code sidesteps (analyses/caught_exceptions.py), or the statement a
higher-order op's function returns with other metadata than torch expects (analyses/
hop_outputs.py). Each gives (the frame to point at, the reason's clause, the fix)."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.caught_exceptions import escaped_handler
from compdiag.analyses.hop_outputs import mismatched_output


def sidestep(ctx: Any, cid: str | None, failure: dict[str, Any], frame: Any,
             one: str) -> tuple[Any, str, str] | None:
    """The first of the two that names the failure's cause; None when neither does."""
    if failure.get("stage") in ("runtime", "dynamo"):
        caught = escaped_handler(ctx, cid, failure.get("exc_type"), frame, one)
        if caught is not None:
            return caught
    return mismatched_output(ctx, frame, f"{failure.get('message') or ''}\n"
                                         f"{failure.get('traceback') or ''}")
