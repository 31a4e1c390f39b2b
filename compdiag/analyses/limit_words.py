"""The recompile limit in words: what happened to the function that hit it (it runs
uncompiled from then on, or, where the limit is an error, the program ended there) and what
to do about it, and the program's own line that lowered the limit."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.locate import source_line

LIMIT_RUNS_ON = "and now runs uncompiled."
# the same limit made an error (fullgraph=True, fail_on_recompile_limit_hit, the
# "fail_on_recompile" stance): probes42a gpt2_inverse_layer_idx_regional_fullgraph said
# "now runs in eager" of a program the limit's error had ended
LIMIT_ENDED = ("and, as an error here (fullgraph=True or fail_on_recompile_limit_hit), ended "
               "the program.")
# probes35b multiscale_size_attr: a size drawn from a list of 12 per step; the dynamic-size
# fix crashed the compiled backward (torch 2.13), and a limit above 12 was the fix that held
LIMIT_FIX = ("{fn} hit torch._dynamo.config.recompile_limit " + LIMIT_RUNS_ON + " {fix} "
             "Raising `torch._dynamo.config.recompile_limit` only hides the cost, unless the "
             "value takes a fixed few values (sizes from a list, say): then a limit above "
             "their number compiles each once and reuses it.")


# The program's own recompile limit, below torch's default (8): a test harness that sets it
# for one test and never restores it (torch._dynamo.reset() keeps config).
LOWERED = re.compile(r"\b(?:recompile_limit|cache_size_limit)\s*=\s*(\d+)\b")
DEFAULT_LIMIT = 8
LOWERED_REASON = "; the limit is {n}, set by the program at line {lineno} (`{line}`)"
LOWERED_FIX = ("Line {lineno} (`{line}`) lowered the recompile limit to {n}, and "
               "torch._dynamo.reset() does not restore config: set it only around the code "
               "that needs it (`with torch._dynamo.config.patch(recompile_limit={n}):`) or "
               "remove the line.")


def lowered_limit(ctx: Any, cid: str | None, recompiles: int) -> dict[str, Any] | None:
    """{n, lineno, line} of the program's line that set the recompile limit the function hit
    below torch's default; None where no such line holds that value."""
    at = source_line(ctx, cid, LOWERED)
    m = LOWERED.search(at.line or "") if at is not None else None
    if m is None or not int(m.group(1)) < DEFAULT_LIMIT or recompiles > int(m.group(1)):
        return None
    return {"n": int(m.group(1)), "lineno": at.lineno,
            "line": re.sub(r"\s+#.*$", "", at.line or "")}
