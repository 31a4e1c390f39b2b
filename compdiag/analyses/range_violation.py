"""A size outside the range a `mark_dynamic(t, dim, min=, max=)` call declared: torch fails the
compile with "5 not in range [2, 4]" (a ConstraintViolationError); the line is the program's
own mark_dynamic call, found in its kept source."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame

# torch's words when a size is outside the range `mark_dynamic(t, dim, min=, max=)` declared
OUT_OF_RANGE = re.compile(r"\b(\d+) not in range \[(-?\w+), (-?\w+)\]")
RANGE_EXPLANATION = ("The size {size} is outside the range [{lo}, {hi}] that `{line}` (line "
                     "{lineno}) declared for the dimension: a marked dimension's min and max "
                     "are constraints every input must meet, and Dynamo fails the compile, "
                     "not recompiles, on one that does not.")
RANGE_FIX = ("Declare a range that holds every size the program passes (widen min/max at line "
             "{lineno}, or leave them out), or check the size before the call; "
             "`torch._dynamo.maybe_mark_dynamic` declares no range.")


def range_violation(ctx: Any, failure: dict[str, Any], text: str
                    ) -> tuple[UserFrame, str, str, str] | None:
    """A size outside the range a `mark_dynamic(..., min=, max=)` call declared ("5 not in
    range [2, 4]"): (that call's line in the program's source, the headline's words, the
    explanation, the fix); None otherwise."""
    m = OUT_OF_RANGE.search(text or "")
    if failure.get("exc_type") != "ConstraintViolationError" or m is None:
        return None
    size, lo, hi = m.groups()
    for path in sorted(ctx.r.source_paths(ctx.run_id)):
        # the code only: a docstring or comment that quotes the call is not where it is made
        # (probes27 dyn_mark_dynamic_max: the module docstring's "mark_dynamic(..., min=2,
        # max=64)" at line 3)
        src, code_lines = ctx.source_lines(path) or [], ctx.code_lines(path) or []
        for lineno, (line, code) in enumerate(zip(src, code_lines), 1):
            flat = code.replace(" ", "")
            if "mark_dynamic(" in flat and (f"={lo}" in flat or f"={hi}" in flat
                                            or f",{lo},{hi}" in flat):
                frame = ctx.frame(path, lineno, line, evidence="source")
                words = dict(size=size, lo=lo, hi=hi, line=line.strip(), lineno=lineno)
                return (frame, f"size {size} outside the range [{lo}, {hi}] declared by "
                        f"mark_dynamic at line {lineno}", RANGE_EXPLANATION.format(**words),
                        RANGE_FIX.format(**words))
    return None
