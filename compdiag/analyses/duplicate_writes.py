"""The words for an accuracy difference that an indexed write with repeated indices makes
(capture/accuracy_localise.duplicate_write): `x[idx] = v`, `index_put_` or `scatter_` with an
index that occurs more than once keeps one of the rows written there, and torch leaves which
one undefined, in eager as in compiled code (probes38g tgn_memory_last_write: "the latest
message per destination" by `last[dst] = m`; compiled kept other rows than eager, and the
difference was said as ill-conditioning at the next line, with a float64 fix that left it)."""

from __future__ import annotations

from typing import Any

REASON = ("{output} differs from eager because `{line}` writes {repeats} repeated "
          "ind{ies} ({op}): which of the rows written to one index is kept is undefined, and "
          "the compiled code keeps others than eager")
EXPLANATION = ("An indexed write (`x[idx] = v`, `index_put_`, `scatter_` without a reduction) "
               "where an index occurs more than once stores one of the values written there, "
               "and torch does not say which: eager's kernel and the compiled one order the "
               "writes differently, so neither result is the program's intent unless the "
               "values agree. It is not rounding: float64 does not help.")
FIX = ("Make the write deterministic: keep one row per index before writing (for \"the last "
       "event per index\", its position: `pos = torch.full((n,), -1).scatter_reduce(0, idx, "
       "torch.arange(len(idx)), 'amax')`, then write the rows at `pos` for the indices that "
       "have one), or reduce the rows explicitly (`index_add_`/`scatter_reduce` with 'sum', "
       "'mean' or 'amax'), or `index_put_(..., accumulate=True)` where a sum is meant.")


def duplicate_words(node: dict[str, Any], output: str) -> tuple[str, str, str] | None:
    """(reason, explanation, fix) for a divergent node the capture found to be an indexed
    write with repeated indices; None for any other node."""
    repeats = node.get("duplicate_writes")
    if not repeats:
        return None
    frame = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else {}
    line = str(frame.get("line") or node.get("node") or "").split(" #")[0].strip()
    op = str(node.get("op") or "")
    op = "index_put_, as `x[idx] = v` makes it" if op.endswith("setitem") else op
    return (REASON.format(output=output, line=line, repeats=repeats,
                          ies="ex" if repeats == 1 else "ices", op=op),
            EXPLANATION, FIX)
