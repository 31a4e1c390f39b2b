"""A graph break in a function Dynamo compiled on its own only because an earlier break, at
the line that calls it, ran that call in eager (issue 29 §2, the cause above its consequence).

probes39d afn_inplace_mark_dirty_break: `InplaceLeakyClamp.apply(...)` at line 29 broke
(GB2464, "mark_dirty input not returned"), so the call ran in eager, and Dynamo compiled the
Function's `forward` as a frame of its own, where `ctx.mark_dirty` outside `apply` broke again
(GB2019, line 9). The second break ranked first and its fix did not apply: it exists only
because of the first. The relation reads stored facts: the effect's compile was started by a
call whose innermost user frame is the cause's break line, in a frame compiled before it."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.diagnosis import Diagnosis
from compdiag.formats.compile_id import frame_of, sort_key
from compdiag.formats.compiled_code import is_resume_function


def entered_after_break(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """effect's compile was entered from cause's break line (the call the break sent to
    eager), and cause's break came first, in another frame."""
    at = cause.user_frame
    if not effect.severity == cause.severity == "problem":
        return False  # torch's own break by design (an optimizer's) causes nothing to fix
    effect_ids = [c for c in (*effect.compile_ids, effect.compile_id) if c]
    cause_ids = [c for c in (*cause.compile_ids, cause.compile_id) if c]
    if not (at and at.filename and at.lineno and effect_ids and cause_ids):
        return False
    if {frame_of(c) for c in effect_ids} & {frame_of(c) for c in cause_ids} - {None}:
        return False
    if min(sort_key(c) for c in cause_ids) >= min(sort_key(c) for c in effect_ids):
        return False
    for cid in effect_ids:
        if is_resume_function((ctx.code_row(cid) or {}).get("co_name")):
            return False  # the code after the break, called from its line: not another function
        chain = ctx.call_chain(cid)
        if chain and (chain[-1].filename, chain[-1].lineno) == (at.filename, at.lineno):
            return True
    return False
