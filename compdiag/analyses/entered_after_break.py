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


def earlier_at_line(effect: Diagnosis, cause: Diagnosis) -> bool:
    """cause's break is at effect's user line, in a frame compiled before effect's."""
    return precedes_at_line(cause.user_frame, cause.compile_ids or (cause.compile_id,),
                             effect.user_frame, effect.compile_ids or (effect.compile_id,))


def precedes_at_line(first: Any, first_cids: Any, then: Any, then_cids: Any) -> bool:
    """A break at `first` (a user frame, its compiles) came at the same user line as the one
    at `then`, in a frame compiled before and apart from it: the one relation both the
    follow-on mark and the fold read."""
    a = [c for c in first_cids if c]
    b = [c for c in then_cids if c]
    return bool(first and then and a and b) and \
        (first.filename, first.lineno) == (then.filename, then.lineno) and \
        not ({frame_of(c) for c in a} & {frame_of(c) for c in b}) - {None} and \
        sort_key(a[0]) < sort_key(b[0])


# torch's words when fullgraph=True made a call whose every frame Dynamo skipped (a dispatch
# mode active, a skipped file): the skip's break is the cause (probes44a
# flops_counter_fullgraph_model: FlopCounterMode around a fullgraph model, the failure
# "The compiled code failed while running" ranked above the skip that says why)
NO_FRAMES = "found no compiled frames"
NO_FRAMES_WHY = ("fullgraph=True raised because Dynamo skipped every frame of the call: the "
                 "skip says why")


def no_frame_compiled(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """effect is fullgraph's failure for a call with no frame compiled, at the user line of
    cause's skipped frame."""
    text = f"{effect.reason or ''} {effect.torch_message or ''}"
    at, then = cause.user_frame, effect.user_frame
    return bool(cause.details.frame_skipped) and NO_FRAMES in text and \
        bool(at and then) and (at.filename, at.lineno) == (then.filename, then.lineno)
