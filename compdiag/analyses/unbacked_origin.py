"""The value behind a data-dependent expression torch could not decide on.

"Could not guard on data-dependent expression Eq(u5, 0)" names the op that needed the value
(torch's `Caused by:` line), not where the value came from. Torch records where it made each
unbacked symbol (ingest/unbacked_symbols.py): a value read out of a tensor (`.item()`,
`int(t[0])`, `.tolist()`: the `local_scalar_dense` op; `nonzero()` and the other ops whose
output size is data) or a size made from such a value (a slice whose bounds are one). The
origin is the read that made a symbol of the expression, else the compile's first read (a
slice bound made u5 from u0); none where the compile read nothing (issue 29 §2, the cause
above its consequence; probes30a static_cache_fullgraph)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.user_code import is_user_file

# torch's words for a guard it could not evaluate on an unbacked symbol
DATA_DEPENDENT = ("Could not guard on data-dependent expression",
                  "Could not extract specialized integer from data-dependent expression")
# the fake-tensor ops that read data: a tensor's value, or an output size that is data
READ_OPS = ("local_scalar_dense", "nonzero", "masked_select", "unique", "repeat_interleave",
            "bincount", "item")
_SYMBOL = re.compile(r"\bu\d+\b")

ORIGIN_EXPLANATION = (
    "{symbol} is a number line {lineno} reads out of a tensor (`{line}`): while tracing, "
    "Dynamo does not know its value (an unbacked symbol), and the op at line {needed} that "
    "must decide on it (a size, a slice bound, a branch) cannot.")
# probes30a static_cache_fullgraph: the slice-bound version failed; static_cache_ok's
# index_copy_ at tensor positions and an int passed in both compile.
ORIGIN_FIX = (
    "Keep the number out of Python: compute it before the compiled call and pass it in as an "
    "int (a changing int becomes dynamic after one recompile), or keep it a tensor and index "
    "with it (`index_copy_`/`index_select` at a tensor position, a mask with `torch.where`) "
    "instead of slicing with it.")


def unbacked_origin(ctx: Any, cid: str | None, text: str | None) -> dict[str, Any] | None:
    """{symbol, op, filename, lineno, line} of the read behind a data-dependent expression
    in `text` (torch's message), or None."""
    text = text or ""
    at = next((text.index(m) for m in DATA_DEPENDENT if m in text), None)
    if at is None:
        return None
    wanted = _SYMBOL.findall(text[at:].split("\n", 1)[0])
    made = [s for s in ctx.r.unbacked_symbols(ctx.run_id, cid)
            if s.get("filename") and s.get("lineno")
            and is_user_file(ctx.resolve(s["filename"]))]
    reads = [s for s in made if (s.get("op") or "").startswith(READ_OPS)]
    for s in reads:
        if s["symbol"] in wanted:
            return s
    return reads[0] if reads else None
