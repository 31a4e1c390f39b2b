"""Recompiles: which guard failed (the input that changed), for which function, how often, and
how to make the input stable or dynamic.

One diagnosis per (function, guard category, guarded expression); the events are classified at
ingest (store table recompile_events). A function that hit the recompile limit now runs
uncompiled: that ranks in the `limit` band, above every other non-crash. A resume function
(after a graph break) recompiling for the same change as its parent folds into the parent."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.ranking import BANDS

KIND = "recompile"
RESUME = "torch_dynamo_resume_in_"


@dataclass(frozen=True)
class RecompileDetails(Details):
    guard: str
    category: str
    before: str | None
    after: str | None
    values: tuple[str, ...]
    function: str | None
    failed_guard: str
    limit_hit: bool


@dataclass(frozen=True)
class LimitDetails(Details):
    """A recompile limit with no recorded guard failure (e.g. a partial log)."""
    limit_hit: bool
    function: str | None


# -- rules: what changed, why it recompiles, the fix ({src} the guarded expression, {where} the
# function, {tensor} the tensor's name, {dim} the dimension) ------------------------------------
REASONS = {
    "size": "size {src} changed", "stride": "stride {src} changed",
    "dtype": "dtype of {src} changed", "device": "device of {src} changed",
    "requires_grad": "requires_grad of {src} changed",
    "global_state": "global state {src} changed", "training": "train/eval mode {src} changed",
    "global": "global {src} changed", "value": "Python value {src} changed",
    "length": "{src} changed",
}
EXPLANATIONS = {
    "size": "A guard on the size {src} failed: {where} was compiled for one size and called "
            "with another.",
    "stride": "A guard on the stride {src} failed: an input with a different memory layout (a "
              "transposed or sliced view) reached the compiled code.",
    "dtype": "The tensor {src} arrived with a different dtype; each dtype needs its own graph.",
    "device": "The tensor {src} arrived on a different device.",
    "requires_grad": "The tensor {src} changed requires_grad; graphs with and without autograd "
                     "are different graphs.",
    "global_state": "Global torch state ({src}) differs from when {where} was compiled.",
    "training": "{src} changed: the module switched between train() and eval().",
    "global": "The global {src} changed value; Dynamo baked the old value into the graph.",
    "value": "The Python value {src} changed; Dynamo specialises on Python scalars and "
             "constants.",
    "length": "{src} changed: the length of a list/tuple argument is part of the graph.",
    "identity": "A different object was passed as {src}; Dynamo guards on its identity.",
    "type": "{src} changed type.",
}
SIZE_REPEATED = ("; repeated size recompiles mean automatic dynamic shapes were off "
                 "(dynamic=False or automatic_dynamic_shapes=False): drop dynamic=False. If "
                 "only a few sizes occur, pad inputs to a fixed set of sizes.")
SIZE_ONCE = ("; one recompile per new dimension is expected (automatic dynamic shapes), more "
             "is not.")
FIXES = {
    "size": "Mark the varying dimension dynamic before the first call, "
            "`torch._dynamo.mark_dynamic({tensor}, {dim})`, or compile with `dynamic=True`",
    "stride": "Make the layout consistent: pass `{tensor}.contiguous()` (or always the same "
              "view) to the compiled function.",
    "dtype": "Call it with one dtype: convert at the call site (`{tensor}.to(torch.float32)`) "
             "or keep separate compiled functions per dtype on purpose.",
    "device": "Move {tensor} to one device before calling the compiled function.",
    "requires_grad": "Keep requires_grad consistent across calls: run inference calls under "
                     "`torch.no_grad()` with the same inputs, or detach() the inputs that "
                     "should not require grad.",
    "global_state": "Call the compiled function under one grad/autocast mode, or compile "
                    "separate functions for training and for inference (torch.no_grad()).",
    "training": "Switching train()/eval() costs one graph per mode, which is fine; avoid "
                "toggling it inside a loop, or keep one compiled copy per mode (e.g. compile "
                "the model after model.eval() for evaluation).",
    "global": "Don't mutate the global {src} between calls: pass it as an argument (a tensor, "
              "so its value is not baked into the graph) or make it a constant.",
    "value": "Pass {src} as a tensor (`torch.tensor(value)`) instead of a Python "
             "number/constant, or mark it dynamic; each distinct Python value otherwise "
             "compiles a new graph.",
    "length": "Pass one stacked tensor (`torch.stack(items)`) instead of a list whose length "
              "changes, or pad the list to a fixed length.",
    "identity": "Create the object (module, function, optimizer) once and reuse it; a new "
                "object per call forces a new compile.",
    "type": "Call the function with the same argument types every time.",
}
FIX_OTHER = ("Keep the guarded input the same between calls, or make it dynamic "
             "(torch._dynamo.mark_dynamic / dynamic=True).")
LIMIT_FIX = ("{fn} hit torch._dynamo.config.recompile_limit and now runs uncompiled. {fix} "
             "Raising `torch._dynamo.config.recompile_limit` only hides the cost.")
# Categories whose new value the recompiled entry's own guards hold (guard_values).
VALUE_GUARDS = ("value", "global", "training", "length")
# A name the recompile reason writes bare (`kind`, `len(xs)`, `fn._modules['1'].training`):
# not after '.', a quote, ']' or another name character, and not a call (`len(`).
_BARE_LOCAL = re.compile(r"(?<![\w'\].])([A-Za-z_]\w*)(?![\w(])")


def tree_spelling(source: str) -> str:
    """The guarded expression as the guard tree writes it: the recompile reason names a
    frame's locals bare, the tree as L['name']."""
    return _BARE_LOCAL.sub(lambda m: m.group(1) if m.group(1) in ("L", "G")
                           else f"L['{m.group(1)}']", source)


def recompile_explanation(category: str, source: str, fn: str | None, count: int,
                          guard: str) -> str:
    where = f"{fn}()" if fn else "the function"
    template = EXPLANATIONS.get(category)
    what = template.format(src=source, where=where) if template else \
        f"A guard failed: {guard[:200]}"
    if count > 1:
        what += f" It happened {count} times."
    return what


def recompile_fix(category: str, source: str, *, count: int, limit: bool,
                  fn: str | None) -> str:
    tensor = re.sub(r"^L\['(.+?)'\].*$", r"\1", source)
    dim = re.search(r"\[(\d+)\]$", source)
    template = FIXES.get(category)
    fix = template.format(src=source, tensor=tensor, dim=dim.group(1) if dim else 0) \
        if template else FIX_OTHER
    if category == "size":
        fix += SIZE_REPEATED if count > 1 else SIZE_ONCE
    if limit:
        fix = LIMIT_FIX.format(fn=fn or "The function", fix=fix)
    return fix


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    limits = dict(ctx.recompile_limits)
    groups: dict[tuple, dict[str, Any]] = {}
    for ev in ctx.r.recompile_events(ctx.run_id):
        row = ctx.code_row(ev["compile_id"])
        frame_no = row.get("frame") if row else ev["compile_id"].split("/")[0]
        key = (frame_no, ev["category"], ev["guarded"])
        groups.setdefault(key, []).append(ev)
    # A resume function recompiles for the same input change as its parent: fold it in.
    def signature(key: tuple, evs: list[dict[str, Any]]) -> tuple:
        return (key[1], evs[0]["before"], evs[-1]["after"])

    parents = {signature(k, evs) for k, evs in groups.items()
               if not (ctx.fn_name(evs[0]["compile_id"]) or "").startswith(RESUME)}
    for key in list(groups):
        evs = groups[key]
        fn = ctx.fn_name(evs[0]["compile_id"]) or ""
        if fn.startswith(RESUME) and signature(key, evs) in parents and key[0] not in limits:
            del groups[key]
    # A function that hit the limit: the limit is the diagnosis of the guard that failed most
    # often there (the last of equals), the frame's other guards stay recompiles of their own.
    per_frame: dict[Any, int] = {}
    limited: dict[Any, tuple] = {}
    for key, evs in groups.items():
        per_frame[key[0]] = per_frame.get(key[0], 0) + len(evs)
        if key[0] in limits and len(evs) >= len(groups.get(limited.get(key[0]), ())):
            limited[key[0]] = key
    out = []
    for (frame_no, category, source), evs in groups.items():
        first, last = evs[0], evs[-1]
        count = len(evs)
        before, after = first["before"], last["after"]
        if after is None and category in VALUE_GUARDS:
            for spelling in dict.fromkeys((source, tree_spelling(source))):
                after = ctx.r.guard_value(ctx.run_id, last["compile_id"], spelling)
                if after is not None:
                    break
        values = [e["before"] for e in evs if e["before"] is not None]
        if last["after"] is not None:
            values.append(last["after"])
        fn = ctx.fn_name(first["compile_id"])
        loc = ({"filename": first["loc_filename"], "lineno": first["loc_lineno"],
                "line": first["loc_line"]} if first["loc_filename"] else None)
        frame = ctx.user_frame(loc, first["user_stack"] or [], cid=first["compile_id"])
        limit = limits.pop(frame_no, None) if limited.get(frame_no) == (frame_no, category,
                                                                        source) else None
        reason = REASONS.get(category, "guard {src} failed").format(src=source)
        if before is not None or after is not None:
            reason += (f" ({before if before is not None else '?'} -> "
                       f"{after if after is not None else 'another value'})")
        explanation = recompile_explanation(category, source, fn, count, first["failed_guard"])
        score = BANDS[KIND] + 20 * min(count, 10)
        if limit is not None:
            score = BANDS["limit"]
            total = per_frame[frame_no]
            on = (f"{count} times on {source}" if total == count else
                  f"{total} times, {count} of them on {source},")
            reason = f"recompile limit hit: {fn or 'a function'}() recompiled {on} and now runs in eager"
            explanation = (limit.get("explanation") or "") + " " + explanation
        out.append(Diagnosis(
            KIND, stage="dynamo",
            compile_id=((limit or {}).get("compile_id") or last["compile_id"]).split("_")[0],
            reason=reason, user_frame=frame, explanation=explanation.strip(),
            fix=recompile_fix(category, source, count=count, limit=limit is not None, fn=fn),
            score=score, count=count, compile_ids=tuple(e["compile_id"] for e in evs),
            details=RecompileDetails(guard=source, category=category, before=before,
                                     after=after, values=tuple(values[:20]), function=fn,
                                     failed_guard=first["failed_guard"][:300],
                                     limit_hit=limit is not None)))
    for limit in limits.values():
        fn = ctx.fn_name(limit.get("compile_id"))
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=limit.get("compile_id"),
            reason=f"recompile limit hit: {fn or 'a function'}() now runs in eager",
            user_frame=ctx.user_frame(cid=limit.get("compile_id")),
            explanation=limit.get("explanation"),
            fix=recompile_fix("other", "?", count=0, limit=True, fn=fn), score=BANDS["limit"],
            details=LimitDetails(limit_hit=True, function=fn)))
    return out


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    """Recompiles cost compile time, paid again before any speed-up; a function stuck in eager
    by the limit costs its whole compiled speed-up."""
    if diagnosis.kind != KIND:
        return None
    cids = diagnosis.compile_ids
    extra = sum(((c.get("stage_times") or {}).get("total") or 0.0)
                for c in timings.compiles if c["compile_id"] in cids)
    comp_all = sum(((c.get("stage_times") or {}).get("total") or 0.0) for c in timings.compiles)
    impact = 0.6 if diagnosis.details.limit_hit else \
        0.3 * (extra / comp_all if comp_all else 0.5)
    return structural(KIND, impact, diagnosis,
                      f"{diagnosis.count} recompile(s), "
                      f"{timings.fmt_time(extra) if extra else 'unknown'} of extra compile time "
                      "(paid again before any speed-up)")
