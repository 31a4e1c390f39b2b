"""The other inputs whose dimension had the size a failed size guard compared: code that ties
two inputs' dimensions (`F.mse_loss(model(x), y)`, a mask beside its batch) makes marking one
of them dynamic fail (`ConstraintViolationError`, the other still static), so the
`mark_dynamic` fix names each of them (probes36a fail_on_recompile_last_shard: the last shard
of a batch, x and y both 3 rows; `mark_dynamic(x, 0)` alone failed at the first step, x and y
together, or `dynamic=True`, worked). Read from the guard values the compiled graph was
guarded with; sizes 0 and 1 tie nothing (every input has them)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.recompile_rules import tensor_and_dim
from compdiag.formats.compile_id import frame_of

_SIZE = re.compile(r"^L\['(\w+)'\]\.size\(\)\[(\d+)\]$")


def tied_sizes(ctx: Any, cid: str | None, source: str, before: Any, after: Any = None
               ) -> list[tuple[str, int]]:
    """(input, dimension) of each other input of the function whose dimension was `before`
    in the compile of `cid`'s frame that guarded `source` at that size, in guard order."""
    m = _SIZE.match(source or "")
    if m is None or before is None or str(before) in ("0", "1"):
        return []
    # the compiles of cid's frame; where the refused call has no id of its own, the one frame
    # that guarded the source at that size (two: no telling which)
    frame = frame_of(cid) if cid else None
    guarded = [(c, ctx.r.guard_values(ctx.run_id, c))
               for c in ctx.compiles if c and frame in (None, frame_of(c))]
    guarded = [(c, v) for c, v in guarded if v.get(source) == str(before)]
    if not guarded or (frame is None and len({frame_of(c) for c, _ in guarded}) > 1):
        return []
    values = guarded[-1][1]
    # in the compile that changed it, an input of the same size too (when it was guarded)
    new = ctx.r.guard_values(ctx.run_id, cid) if cid and after is not None else {}
    tied = [(k.group(1), int(k.group(2))) for g, value in values.items()
            if (k := _SIZE.match(g)) and value == str(before) and k.group(1) != m.group(1)
            and new.get(g, str(after)) == str(after)]
    return list(dict.fromkeys(tied))


def tied_words(tensor: str, dim: Any, tied: list[tuple[str, int]], before: Any) -> str:
    """The size fix's mark_dynamic calls, one per tied input."""
    marks = " and ".join(f"`torch._dynamo.mark_dynamic({t}, {d})`"
                         for t, d in [(tensor, dim), *tied])
    names = ", ".join(f"{t}'s dimension {d}" for t, d in tied)
    return (f"Mark the varying dimension dynamic before the first call, on each input that "
            f"has it: {marks} ({names} had the same size, {before}; where the code ties them, "
            "marking one alone fails with a ConstraintViolationError), or compile with "
            "`dynamic=True`")


def tied_fix(ctx: Any, cid: str | None, source: str, before: Any, after: Any = None
             ) -> str | None:
    """The size fix for `source` naming its tied inputs (tied_words), None when none is."""
    tied = tied_sizes(ctx, cid, source, before, after)
    return tied_words(*tensor_and_dim(source), tied, before) if tied else None
