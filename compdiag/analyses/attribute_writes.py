"""The program's line that changed a module attribute a recompile's guard failed on (issue 29
§1, the line the user must change). Capture keeps every set of a module's attribute made after
a graph was compiled, with the innermost user line on the stack (capture/module_writes.py);
a recompile whose guard reads that attribute (`L['self'].grad_checkpointing`,
`L['self']._modules['fc']...`) is then told where it changed: the last such set between the
frame's previous compile and this one (probes44b timm_vit_grad_ckpt_enabled_midrun:
`model.set_grad_checkpointing(True)` at line 37; timm_resnet_reset_classifier_after_compile:
`model.reset_classifier(3)` at line 36, where the recompile had been shown at the call with
a `mark_dynamic` fix that does not apply to a parameter)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.compile_id import first_attempt, frame_of

KIND = "compdiag:module_attr"
# the names a guarded expression walks through (`.grad_checkpointing`, `['fc']`)
_NAMES = re.compile(r"\.(\w+)|\['(\w+)'\]")
_NOT_ATTRIBUTES = frozenset({"_modules", "_parameters", "_buffers", "size", "stride", "shape",
                             "storage_offset", "__dict__"})
# guards a mode switch or a size explains by design: never pinned on an attribute's set
NOT_WRITES = ("training", "global_state", "requires_grad", "zero_one", "size_range",
              "size_branch", "size_order")

SUFFIX = "; {attr} set at line {lineno}: `{line}`"
EXPLANATION = ("The compiled code guards on {src}, a Python attribute of a {cls} it traced: "
               "the program changed it between calls, at line {lineno} (`{line}`), so the "
               "next call failed the guard and {fn}() compiled again (once for each new "
               "value; the graphs before it are kept).")
FIX = ("Make the change at line {lineno} before the first compiled call (before "
       "`torch.compile`, or at least before the first call), so one compile serves every "
       "call; a change made once costs one more compile and can stay. If the program changes "
       "it again and again, keep the varying value out of the module's Python attributes: "
       "pass a number the code computes with to the call as a tensor; a value that chooses "
       "which code runs (an index into a ModuleList, a branch) no tensor can stand for, so "
       "compile the parts it chooses between (each block: `block.compile()`) and choose in "
       "eager Python.")
# probes47a specaug_width_schedule_recompile: an int attribute a schedule raises each epoch;
# torch's own switch made it dynamic (one recompile, then none), unoffered
INT_FIX = (" For an int attribute, torch's own switch makes it dynamic where the code only "
           "computes with it: `torch.compiler.config.allow_unspec_int_on_nn_module = True` "
           "before the first compile (one more compile, then one graph for its values).")


def attribute_write(ctx: Any, frame_no: Any, cid: str | None, source: str,
                    category: str) -> dict[str, Any] | None:
    """The module-attribute set (its record's data: module, key, value, call) that the
    recompile `cid` of frame `frame_no` followed and whose attribute `source` reads; None
    when none was recorded."""
    if category in NOT_WRITES or not cid:
        return None
    names = {a or b for a, b in _NAMES.findall(source or "")} - _NOT_ATTRIBUTES
    if not names:
        return None
    writes = list(ctx.r.records(ctx.run_id, kind=KIND, with_payload=False))
    if not writes:
        return None
    starts = {r["compile_id"]: r["seq"] for r in ctx.r.records(
        ctx.run_id, kind="dynamo_start", with_payload=False) if r.get("compile_id")}
    mine = starts.get(cid) or starts.get(first_attempt(cid) or "")
    if mine is None:
        return None
    before = [seq for c, seq in starts.items() if frame_of(c) == frame_no and seq < mine]
    after = max(before, default=0)
    for rec in reversed(writes):
        data = (rec.get("metadata") or {}).get("compdiag") or {}
        call = data.get("call")
        if after < rec["seq"] < mine and data.get("key") in names and isinstance(call, dict) \
                and call.get("lineno"):
            return data
    return None


def write_words(ctx: Any, write: dict[str, Any], source: str, fn: str | None
                ) -> tuple[Any, str, str, str]:
    """(the user frame, suffix, explanation, fix) of a recompile on an attribute set at a
    line of the program's."""
    call = write["call"]
    frame = ctx.frame(call.get("filename"), call.get("lineno"), call.get("line"), "call")
    words = dict(attr=write.get("key"), lineno=call.get("lineno"),
                 line=(call.get("line") or "").strip()[:80], src=source,
                 cls=write.get("module") or "module", fn=fn or "the function")
    whole = re.fullmatch(r"-?\d+", str(write.get("value") or "")) is not None
    return (frame, SUFFIX.format(**words), EXPLANATION.format(**words),
            FIX.format(**words) + (INT_FIX if whole else ""))
