"""Failures: an exception that escaped a compile stage (or compiled code at run time), filed
by stage, at the user's line, with the way to narrow it down (bisect, then minify).

The failure that ended the program ranks as a crash, above everything; the others in the
`failure` class, in the order they happened. A recompile-limit failure, one that repeats a
graph break or an accuracy mismatch, is folded under that diagnosis (its cause) by explain: the
relations kinds declare (KindSpec.causes, analyses/consequences.py). The program exception
that ended the run (program_exceptions) says where the failure surfaced in the user's code and
the frame it was raised in; a failure is fatal only when that exception came through compiled code.

A run-time failure's fix starts with the rule of RUNTIME_FIXES that matches torch's message
(data: one row per known error of compiled code at run time), then the way to narrow it down;
the fix texts are in analyses/fixes.py, since the program kind prints them too. What it reads
of torch's text (the graph break a traceback reports, the recompile limit, a mark_dynamic
violation) is stored at ingest (failures' fact columns)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from compdiag.analyses import warnings_as_errors as WE
from compdiag.analyses.break_before_failure import EXPLANATION as BREAK_EXPLANATION
from compdiag.analyses.break_before_failure import break_at, break_fix, break_words
from compdiag.analyses.config_cause import config_behind
from compdiag.analyses.config_suspects import suspect, suspect_fix
from compdiag.formats.guard_source import in_user_spelling
from compdiag.analyses.inplace_version import EXPLANATION as SAVED_EXPLANATION
from compdiag.analyses.inplace_version import FIX as SAVED_FIX
from compdiag.analyses.inplace_version import written_saved_tensor
from compdiag.analyses.sidesteps import sidestep
from compdiag.analyses.range_violation import OUT_OF_RANGE as _OUT_OF_RANGE, range_violation
from compdiag.analyses.compiled_export import export_words, wrapper_exported
from compdiag.analyses.consequences import Causes, same_compile
from compdiag.analyses.failure_facts import failed_compile_cache, foreign_op
from compdiag.analyses.context import exception_frames, is_recompile_limit
from compdiag.analyses.debug_context import short_context
from compdiag.analyses.deep_recursion import recursive_call
from compdiag.analyses.raising_branch import raising_branch
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.func_transforms import FIX as TRANSFORM_FIX
from compdiag.analyses.func_transforms import escaped_transform
from compdiag.analyses.failure_fixes import (EXPORT_EXPLANATION, EXPORT_FIX, failure_fix,
                                             minify_unavailable, stage_explanation)
from compdiag.analyses.fixes import (INTERNAL_ERROR, INTERNAL_EXPLANATION, origin_fix,
                                     runtime_fix, runtime_why)
from compdiag.analyses.runtime_fixes import circumstance, eager_fails
from compdiag.analyses.nested_compiles import nested_compile
from compdiag.analyses.source_causes import SOURCE_CAUSES
from compdiag.analyses.gb_registry import gb_registry
from compdiag.analyses.hop_mutation import with_written
from compdiag.analyses.fake_origins import (HANDLED_FIX, INTERNAL_FAKE_FIX, TORCH_INTERNAL,
                                           TRACED_STAGES, origin_verdict)
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import (SOURCE, TORCH, first_user_frame, kernel_frames,
                                     locate, overwritten_lines, ran_op, runtime_origin,
                                     source_line)
from compdiag.analyses.numpy_guard_bug import numpy_guard_bug
from compdiag.analyses.region_reuse import CLAUSE, FIX as VARYING_FIX, REUSE_LIMIT, \
    varying_number
from compdiag.analyses.ranking import Cost
from compdiag.analyses.refused_recompile import refused
from compdiag.analyses.raised_by import raised_by, wordless
from compdiag.analyses.summary import with_decisive
from compdiag.analyses.unbacked_origin import (INDUCTOR_FIX as UNBACKED_FIX, ORIGIN_EXPLANATION,
                                               DATA_DEPENDENT, FULLGRAPH_OFF, LIBRARY_BRANCH_FIX,
                                               SAME_LINE_EXPLANATION, SAME_LINE_FIX,
                                               data_dependent, unbacked_origin)
from compdiag.analyses.traced_user_code import library_frame, ran_while_tracing
from compdiag.formats.code_text import call_clause, called
from compdiag.formats.user_code import frames_in, library_call
from compdiag.ingest import parsers as P

KIND = "failure"


@dataclass(frozen=True)
class FailureDetails(Details):
    exc_type: str | None
    fatal: bool
    injected_bugs: dict[str, Any] = field(default_factory=dict)
    function: str | None = None
    # The fatal failure: the user's line it surfaced at, the frame it was raised in (torch's
    # or generated code's) and the compiled code it came through.
    surfaced_at: dict[str, Any] | None = None
    raised_in: dict[str, Any] | None = None
    came_through: str | None = None
    # Dynamo gave up at the recompile limit: the recompiles kind's diagnosis is its cause.
    recompile_limit: bool = False
    # The user's line torch's own message says the failing tensor was made at ("Stack trace:
    # File ..." of an overwritten CUDA-graph output): the failure stays where the tensor is
    # read, but the fix is often where it was made, so both are shown (issue 29 §1).
    made_at: dict[str, Any] | None = None
    omit_none = ("surfaced_at", "raised_in", "came_through", "made_at")
    internal: ClassVar[tuple[str, ...]] = ("recompile_limit",)


def _range_recompile(effect: Diagnosis, cause: Diagnosis) -> bool:
    """The recompile that made the compile a declared range failed (a size outside
    mark_dynamic's min/max): the failure says what happened and what to change; the
    recompile's own fix (state the range with mark_dynamic) would be the cause again
    (probes27 dyn_mark_dynamic_max)."""
    return (getattr(effect.details, "category", None) == "size_range"
            and getattr(cause.details, "exc_type", None) == "ConstraintViolationError"
            and same_compile(effect, cause))


def _failed_recompile(effect: Diagnosis, cause: Diagnosis) -> bool:
    """The recompile whose new compile is the one that failed, ending the program: one event
    (probes29b rerank_candidates_abort: `view(-1, 8)` on a size not divisible by 8 failed to
    compile, and its recompile, "a branch on (size % 8) took the other way", came third with
    `torch.where` advice for a program with no branch)."""
    # (a recompile-limit failure is the recompile's consequence, the other way round)
    return (getattr(cause.details, "fatal", False) and cause.stage != "runtime"
            and not getattr(cause.details, "recompile_limit", False)
            and "RecompileLimit" not in str(getattr(cause.details, "exc_type", ""))
            and not getattr(effect.details, "limit_hit", False)
            and same_compile(effect, cause))


SPEC = KindSpec(KIND, title="failure", words=("failure", "failures"), style="bold red", tie=10,
                costs={"failure": Cost(800)}, details=(FailureDetails,),
                causes=(Causes(KIND, "recompile", "the recompile made the compile that "
                               "failed on the declared range: the failure reports it",
                               lambda e, c, ctx: _range_recompile(e, c), same_finding=True),
                        Causes(KIND, "recompile", "the recompile's new compile is the one "
                               "that failed: the failure reports it",
                               lambda e, c, ctx: _failed_recompile(e, c),
                               same_finding=True),
                        # probes44j saliency: "aotautograd cache bypassed" ranked as a problem
                        Causes(KIND, "cache", "the compile failed, so it had nothing to cache",
                               lambda e, c, ctx: failed_compile_cache(e, c))))


# torch's words for an argument Dynamo cannot put in a graph (fullgraph's failure of it)
PROXY_MACHINERY = "Failed to convert args/kwargs to proxy"


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


# (an exception's message is on its own line: the whitespace after the colon never runs over a
# line end, where a bare assertion's empty "AssertionError: " would take the next line's words)
_INNER_EXC = re.compile(r"^[ \t]*([A-Za-z_][\w.]*(?:Error|Exception|Failed|Unsupported|"
                        r"Interrupt)):[ \t]*(\S.*)$", re.M)
# The exception a wrapper names on the line after its "raised:", whatever its class is called
# (GuardOnDataDependentSymNode, a user's own class): the wrapped error.
_AFTER_RAISED = re.compile(r"raised:[ \t]*\n[ \t]*([A-Za-z_][\w.]*):[ \t]*(\S.*)$", re.M)
_GOT = re.compile(r"got (\w+)\((['\"])(.+?)\2\)")


ESCAPED_EXPLANATION = (
    "torch names a torch.func wrapper (functorch's TensorWrapper/BatchedTensor) met outside "
    "its transform: something {call} made inside the compiled function (a returned function, a "
    "closure, a tensor kept past the transform) left it, and AOTAutograd cannot read a "
    "wrapper whose level is gone; torch's traceback points only at the compiled call.")


REJECTED_EXPLANATION = (
    "The error is not Dynamo's: while tracing, Dynamo ran torch's `{function}()` ({where}) "
    "on the values that this line passes, as eager would, and it rejected them; eager "
    "raises the same error at this line.")
REJECTED_FIX = ("Fix the values that line {lineno} passes to {call}: `{function}()` "
                "({where}) rejected them; run the line in eager to see the same error with "
                "its full stack.")


def one_line(exc_type: str | None, message: str | None, traceback: str | None,
             torch_message: str | None = None) -> str:
    """The failure in one line, the real error rather than Dynamo's wrapper around it, with
    the decisive lines torch put after its first (analyses/summary.py)."""
    return with_decisive(_first(exc_type, message, traceback), torch_message)


def _first(exc_type: str | None, message: str | None, traceback: str | None) -> str:
    msg = (message or "").strip()
    got = _GOT.search(traceback or "")
    if got and "fake tensor" in msg:
        return f"{exc_type}: {got.group(1)}: {got.group(3)[:300]}"
    # Dynamo's wrappers ("backend='inductor' raised:") hide the real error on a later line.
    if traceback and (not msg or "raised:" in msg or msg.endswith(":")):
        inner = list(_AFTER_RAISED.finditer(traceback)) or [
            m for m in _INNER_EXC.finditer(traceback)  # not a wrapper's own line
            if not m.group(2).rstrip().endswith("raised:")]
        if inner:
            m = inner[-1]
            # where ingest found torch failing, after the wrapper's words (ingestor.failure)
            where = msg.rsplit("raised:", 1)[-1].strip() if "raised:" in msg else ""
            where = f" {where}" if where.startswith("(") else ""
            return f"{m.group(1).split('.')[-1]}: {m.group(2).strip()[:300]}{where}"
        bare = P.bare_assertion(traceback)
        if bare:  # a wrapped AssertionError with no message: its words are its statement
            return f"AssertionError: `{bare[0][:200]}` failed ({bare[1]}:{bare[2]})"
    head = f"{exc_type}: " if exc_type and exc_type not in msg else ""
    return (head + P.first_line(msg, 300)).strip()


MARKED_EXPLANATION = ("{src} was marked dynamic (mark_dynamic), but `{line}` (line {lineno}) "
                      "specialised it to {value}, which a dimension "
                      "marked dynamic must not be.")
MARKED_FIX = ("Either let the dimension be a constant there: use "
              "`torch._dynamo.maybe_mark_dynamic` instead of `mark_dynamic` (or drop the "
              "mark); or rewrite line {lineno} so it does not need the concrete size (no "
              "Python loop over `range(<size>)`, no `if` on an exact size, no size converted "
              "to a Python int).")

# probes41c hf_bert_mark_dynamic_ids_only: `mark_dynamic(batch["input_ids"], 1)` alone; the
# attention mask of the same length, unmarked, pinned it in transformers' SDPA call, which
# was said at the library's line with "rewrite line 183"
MARKED_LIB_EXPLANATION = (
    "{src} was marked dynamic (mark_dynamic), but library code the call runs specialised it "
    "to the constant {value} ({why}) at {where} (`{line}`): an op there needs this size to "
    "equal another size that is a constant, usually another input of the same length that "
    "was not marked (`attention_mask`, position or token-type ids).")
MARKED_LIB_FIX = ("Mark that dimension of every input that shares it, not only this one "
                  "(`torch._dynamo.mark_dynamic(batch[\"attention_mask\"], 1)` beside the mark "
                  "of the ids, for each such input), or use `torch._dynamo.maybe_mark_dynamic`, "
                  "which lets torch keep the size constant where it must.")


# probes42b hf_vit_mark_dynamic_hw: H and W of a ViT's pixel_values marked dynamic; the
# library's `if height != self.image_size[0] ...:` is a size check against the model's own
# value, not another input: maybe_mark_dynamic only moved the end to that check's ValueError
_SIZE_CHECK = re.compile(r"^\s*(?:el)?if\b.*(?:[!=]=|[<>]=?)\s*self\.")
MARKED_CHECK_EXPLANATION = (
    "{src} was marked dynamic (mark_dynamic), but library code the call runs checks it "
    "against a value of the model's own at {where} (`{line}`), which specialised it to "
    "{value}: the model takes only that size there, so the dimension cannot be dynamic.")
MARKED_CHECK_FIX = ("Drop the mark for this dimension (each size then compiles once, if the "
                    "model takes it at all), or call the model with its own option for other "
                    "sizes where it has one (vision transformers in transformers: "
                    "`interpolate_pos_encoding=True`); `maybe_mark_dynamic` only moves the "
                    "end to the model's own check, which eager raises too.")


# A marked dimension that took a size of 0 or 1, which torch always specialises: no line of
# the program specialised it (probes29b batcher_min_batch_one, `mark_dynamic(ids, 0, min=1)`
# then a batch of one got the generic fake-tensor fix)
_SPECIALISED_01 = re.compile(r"specialized it to be a constant \(([01])\)")
SPECIALISED_01_EXPLANATION = (
    "The call passed a size of {value} for a dimension marked dynamic: torch specialises "
    "sizes 0 and 1 whatever the mark's `min` says (0/1 specialisation), so no line of yours "
    "did it and a marked dimension cannot take them.")
SPECIALISED_01_FIX = (
    "Use `torch._dynamo.maybe_mark_dynamic` instead of `mark_dynamic` (torch's hint): the "
    "size-{value} call then compiles a graph of its own, once; or keep the size at 2 or more "
    "(pad the batch and drop the padded rows from the output).")
def marked_dynamic_failure(ctx: Any, failure: dict[str, Any]) -> tuple[UserFrame, str, str] | None:
    """A ConstraintViolationError from `mark_dynamic`: the line that specialised the marked
    dimension (symbolic_shape_specialization; else the "User stack:" torch's message
    quotes), what happened and the fix. None for any other failure."""
    if not (failure.get("exc_type") == "ConstraintViolationError" or
            failure.get("constraint_sources")) or _OUT_OF_RANGE.search(
            f"{failure.get('message') or ''}"):
        return None
    sources = failure.get("constraint_sources") or []
    cid = failure.get("compile_id")
    small = _SPECIALISED_01.search(f"{failure.get('message') or ''}\n"
                                   f"{failure.get('torch_message') or ''}")
    if small is not None:
        value = small.group(1)
        return (locate(ctx, cid), SPECIALISED_01_EXPLANATION.format(value=value),
                SPECIALISED_01_FIX.format(value=value))
    spec = next((sp for sp in (ctx.specialization(src, [cid]) for src in sources) if sp), None)
    lib = None if spec is not None else next(
        (sp for sp in (ctx.specialization(src, [cid], lineless=True) for src in sources)
         if sp and sp.get("user_stack")), None)
    if lib is not None:  # library code the call ran specialised it (probes41c hf_bert_...)
        op = lib["user_stack"][-1]
        words = dict(src=in_user_spelling((lib.get("sources") or sources)[0]),
                     value=lib.get("value"), why=lib.get("reason") or "specialised",
                     where=f"{Path(str(op.get('filename'))).name}:{op.get('lineno')}",
                     line=(op.get("line") or "").strip())
        if _SIZE_CHECK.search(words["line"]):  # checked against the model's own value
            return locate(ctx, cid), MARKED_CHECK_EXPLANATION.format(**words), MARKED_CHECK_FIX
        return locate(ctx, cid), MARKED_LIB_EXPLANATION.format(**words), MARKED_LIB_FIX
    if spec is None:
        spec = next((sp for sp in ctx.specializations if sp["compile_id"] == cid
                     and sp.get("filename")), None)
    if spec is not None:
        frame = ctx.frame(spec["filename"], spec["lineno"], spec.get("line"), "torch")
        src = next((x for x in spec.get("sources") or [] if x in sources),
                   (spec.get("sources") or sources or ["the dimension"])[0])
        value, why = spec.get("value"), spec.get("reason") or "specialised"
    else:
        frame = locate(ctx, torch=[failure.get("constraint_frames") or []])
        if not frame:
            return None
        src, value, why = (sources or ["the dimension"])[0], None, None
    to = f"the constant {value} ({why})" if value is not None else "a constant"
    exported = failure.get("exc_type") != "ConstraintViolationError"  # export's UserError
    explanation = (EXPORT_EXPLANATION if exported else MARKED_EXPLANATION).format(
        src=src, line=frame.line or "?", lineno=frame.lineno, value=to)
    return frame, explanation, (EXPORT_FIX if exported else MARKED_FIX).format(
        lineno=frame.lineno)


def _outer_frames(tb: str, failure: dict[str, Any]) -> list[dict[str, Any]]:
    """The traceback's frames outside the user frame capture stored for the failure (deeper
    ones are torch's or Inductor's generated code, wherever its cache dir is)."""
    frames = frames_in(tb)
    own = (failure.get("filename"), failure.get("lineno"))
    at = next((i for i, fr in enumerate(frames) if (fr.get("filename"), fr.get("lineno")) == own),
              None)
    return frames[:at] if at is not None else frames


CONFIG_EXPLANATION = (
    "The exception was raised in torch's own code for `{name}`, a setting the program "
    "changed: that code runs only because of it, so the setting's line is where to act.")
CONFIG_CONFIRM = "Run once without `{name}` (line {line}) to confirm it is the cause"
CONFIG_FIX = CONFIG_CONFIRM + (
    "; if the failure goes, leave it at torch's default for this program and report the "
    "failure to PyTorch with the traceback.")


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out = []
    rows = ctx.failures
    exc = ctx.program_exception
    for idx, f in enumerate(rows):
        cid = f["compile_id"]
        fatal = f is ctx.ending_failure
        tb = f.get("traceback") or ""
        whole = f.get("torch_message") or (exc.get("message") if fatal and exc else None)
        surfaced, raised = exception_frames(exc) if fatal and exc else (None, None)
        # torch's traceback: the failure's own, then where the program's exception surfaced
        if f["stage"] == "runtime" and (tb or overwritten_lines(ctx, cid, f.get("message"))):
            # raised while compiled code ran: the op inside it, before the call; the op
            # torch's message names (stored at ingest) first: its node's user line
            frame = ran_op(ctx, frames_in(tb), cid, kernel_frames=kernel_frames(ctx),
                           calls=[surfaced], own={k: f.get(k)
                                                  for k in ("filename", "lineno", "line")},
                           named=ctx.target_user_lines(cid, f.get("op")),
                           words=f.get("message"))
        else:
            frame = locate(ctx, cid, torch=[{"filename": f.get("filename"),
                                             "lineno": f.get("lineno"), "line": f.get("line")},
                                            _outer_frames(tb, f), surfaced])
        one = one_line(f.get("exc_type"), f.get("message"), f.get("traceback"), whole)
        # a break another error reports (a higher-order op's branch): its words; the break
        inner_break = with_written(f.get("gb_explanation"), P.debug_context(tb)) if f.get(
            "exc_type") != "Unsupported" else short_context(P.debug_context(tb))  # (probes35d)
        if f.get("gb_code") and inner_break and inner_break not in one:
            one = f"{one}: {inner_break}"
        if f.get("op") and f["op"] not in one:  # the op torch named: what the user fixes
            one = f"{one} (in op {f['op']})"
        unbacked = data_dependent(f.get("message"), f.get("op")) \
            if f["stage"] not in ("dynamo", "runtime") else None
        if unbacked:  # a size that depends on the data, and the op that made it
            one += unbacked
        if PROXY_MACHINERY in one:
            # torch's words are about Dynamo's machinery: the user's call and what it passed
            one += call_clause(f.get("line"), one, objects=True)
        # torch's own builtin under the user's call: (the call, the builtin)
        inside = TORCH_INTERNAL.search(one) if f["stage"] == "dynamo" else None
        inside = (called(f.get("line")), inside.group(1)) if inside else None
        if inside and inside[0]:
            one += call_clause(f.get("line"), one) + f", inside torch's own {inside[1]}()"
        origin = runtime_origin(frames_in(tb)) if f["stage"] == "runtime" and tb else None
        if origin and origin not in one:  # raised by torch's runtime around the kernels
            one = f"{one} (raised by {origin})"
        # Dynamo's own error: torch named it (the failure's type, or the exception it ended
        # the program with), whatever error it wraps
        by = raised_by(f.get("raise_site"))
        if by is not None and wordless(one, f.get("exc_type")):
            # torch's error has no words: the function that raised it names it
            one = f"{one.strip().rstrip(':')} with no message, {by.words()}"
        internal = INTERNAL_ERROR in (f.get("exc_type"), (exc or {}).get("exc_type") if fatal
                                      else None)
        # not Dynamo's own error: a library function Dynamo ran on the call's values raised it
        rejected = internal and by is not None and by.called_by_dynamo and not by.machinery
        # nor is a known error with its own fix that Dynamo met while tracing (a CUDA graph's
        # overwritten output it fake-tensorised: set28/gpu cg_train_step_backward_break)
        internal = internal and not rejected and not runtime_fix(
            f"{one}\n{whole or ''}\n{f.get('message') or ''}", f["stage"])
        inner = one
        if internal and INTERNAL_ERROR not in one:
            one = f"{INTERNAL_ERROR} (Dynamo's own error): {one}"
        callee = called(frame.line, (library_call(frames_in(tb)) or {}).get("name")) \
            if internal or rejected else None
        if callee and callee.rsplit(".", 1)[-1] not in one:
            # Dynamo's words are about its machinery: name the user's call it was tracing
            one = f"{one}, tracing `{callee}(...)` at line {frame.lineno}"
        ran = ran_while_tracing(ctx, tb, frame) if f["stage"] in TRACED_STAGES else None
        if ran is not None:  # raised in code of the user's that torch ran while tracing
            via = ", ".join(f"line {v.lineno}" for v in ran.via)
            one = (f"{one}; raised at line {ran.frame.lineno}"
                   + (f" in {ran.function}()" if ran.function else "")
                   + f", code of yours torch ran while tracing line {frame.lineno}"
                   + (f" (through {via})" if via else ""))
            frame = ran.frame
        made = first_user_frame(ctx, f.get("torch_frames"), TORCH)
        made_at = made.to_json() if made and (made.filename, made.lineno) != (
            frame.filename, frame.lineno) else None
        gb = f.get("gb_code")
        injected = ctx.injected_bugs(cid)
        lib = library_frame(ctx, tb) if f["stage"] == "dynamo" else None
        if lib is not None and lib.get("line") and lib["line"] not in one:  # library code
            one += (f", at `{lib['line']}` in {lib.get('name')}() "  # the user's line calls
                    f"({Path(str(lib.get('filename'))).name}:{lib.get('lineno')})")
        fix = failure_fix(f["stage"], INTERNAL_ERROR if internal else f.get("exc_type") or "",
                          one, run_id=ctx.run_id, function=ctx.user_fn_name(cid),
                          argv=ctx.argv, store=ctx.store, injected=injected,
                          gb_type=(gb_registry().get(gb or "", {}).get("Gb_type")
                                   or f.get("message") or ""),
                          debug=P.debug_context(tb), line=frame.line or "",
                          message=f"{f.get('message') or ''}\n{tb[-4000:]}",
                          torch_message=whole,
                          no_minify=minify_unavailable(ctx, cid, f"{f.get('message') or ''}\n"
                                                       f"{whole or ''}", f.get("op")),
                          lib_frame=lib, eager=ctx.r.eager_reruns(ctx.run_id).get(cid),
                          program_op=f.get("fake_op") if foreign_op(f.get("fake_op")) else None)
        if unbacked:
            fix = f"{UNBACKED_FIX} {fix}"
        cfg = None if injected else suspect(ctx, frame.filename, f.get("op"), f.get("message"),
                                            frame.line)
        if cfg:  # a setting the program turned on that the failure's words implicate
            one += f", with `{cfg['statement']}` set at line {cfg['frame'].lineno}"
            fix = suspect_fix(cfg, fix)
        expl = stage_explanation(f["stage"], fatal)
        if f.get("reraised"):  # a worker's error the program re-raised (DataLoader's)
            expl += f" It was raised in another process and re-raised: \"{f['reraised']}\""
        torch_said = f"{one}\n{whole or ''}\n{f.get('message') or ''}\n{tb[-4000:]}"
        why = runtime_why(torch_said, f["stage"])
        if why:  # what torch's words mean where they mislead (alone: not the stage's fault)
            expl = why if circumstance(torch_said, f["stage"]) else f"{expl} {why}"
        if internal:
            expl = f"{expl} {INTERNAL_EXPLANATION.format(inner=inner)}"
        nested = nested_compile(ctx, cid) if internal else None
        if nested is not None:  # a torch.compile inside the traced code (nested_compiles)
            frame, one = nested["frame"], one + nested["clause"]
            expl, fix = f"{expl} {nested['explanation']}", nested["fix"]
        if rejected and by is not None:
            expl = f"{expl} {REJECTED_EXPLANATION.format(function=by.function, where=by.where)}"
            fix = REJECTED_FIX.format(function=by.function, where=by.where,
                                      call=f"`{callee}(...)`" if callee else "the call",
                                      lineno=frame.lineno)
        saved = written_saved_tensor(ctx, list(ctx.compiles), f.get("message"), [
            frame.filename, *(ctx.argv or [])[:1],
            *((ctx.code_row(c) or {}).get("filename") for c in ctx.compiles)])
        if saved is not None:  # the in-place write to a tensor backward needed, at its line
            frame = saved["frame"]
            one = (one.split(" Hint:")[0].rstrip(". ")  # torch's hint is the search done here
                   + f": {saved['name']} {saved['shape']}, written in place at line "
                     f"{frame.lineno}")
            expl = f"{expl} {SAVED_EXPLANATION.format(lineno=frame.lineno, **saved)}"
            fix = SAVED_FIX.format(**saved)
        marked = marked_dynamic_failure(ctx, f)
        if marked is not None:  # the line that specialised a dimension marked dynamic
            frame, more, fix = marked
            expl = f"{expl} {more}"
        ranged = range_violation(ctx, f, f"{whole or ''}\n{f.get('message') or ''}")
        if ranged is not None:  # a size outside the range mark_dynamic declared
            frame, said, more, fix = ranged
            one, expl = f"{one} ({said})", f"{expl} {more}"
        read = unbacked_origin(ctx, cid, f"{whole or ''}\n{f.get('message') or ''}")
        if read is not None:  # the read that made the symbol; on this line: its op's words
            same = (read["filename"], read["lineno"]) == (frame.filename, frame.lineno)
            words = {**read, "needed": frame.lineno, "line": (read.get("line") or "").strip(),
                     "fullgraph": FULLGRAPH_OFF.format(needed=frame.lineno) * (
                         f["stage"] == "dynamo")}
            one += (f" ({words['symbol']} is {words['what']} on this line, which depends on "
                    "the data" if same else
                    f" (from `{words['line']}` at line {read['lineno']}, {words['what']}")
            one += ")"
            more, fix = (SAME_LINE_EXPLANATION, SAME_LINE_FIX) if same else \
                (ORIGIN_EXPLANATION, read["fix"])
            expl, fix = f"{expl} {more.format(**words)}", fix.format(**words)
            if not same and frame.evidence != TORCH:  # the line torch names stays (probes35c
                frame = ctx.frame(read["filename"], read["lineno"], read.get("line"),  # /35e)
                                  evidence=TORCH)
        elif lib is not None and any(w in (f.get("message") or "") for w in DATA_DEPENDENT):
            fix = LIBRARY_BRANCH_FIX.format(name=lib.get("name"), line=lib.get("line"), file=Path(
                str(lib.get("filename"))).name, lineno=lib.get("lineno"))
        for marker, pattern, more, change, past_def, named, moves in SOURCE_CAUSES:
            at = source_line(ctx, cid, pattern, after=ctx.code_row(cid) if past_def else None) \
                if marker in f"{one}{whole}" else None
            if at is None:
                continue
            frame = at if moves or frame.evidence != TORCH else frame
            expl = f"{expl} {more.format(lineno=at.lineno)}"
            fix = change.format(lineno=at.lineno)  # led by a setting that set it off:
            fix = suspect_fix(cfg, fix) if cfg else fix  # probes46a cutmix capture_scalar
            said = pattern.search(at.line or "") if named else None
            if said is not None:  # the call the headline names
                one += f" (from `{said.group(0)}` at line {at.lineno})"
        escaped = escaped_transform(ctx, f"{one}\n{whole or ''}\n{f.get('message') or ''}")
        if escaped is not None and marked is None:  # a torch.func transform's tensor escaped
            frame = ctx.frame(escaped["filename"], escaped["lineno"], evidence=SOURCE)
            one += f" ({escaped['said']})" if escaped.get("said") else (
                f" (`{escaped['call']}(...)` ran in eager over compiled code)"
                if escaped.get("in_eager") else
                f" (a tensor of {escaped['call']} escaped the transform)")
            expl = f"{expl} " + (escaped.get("explanation")
                                 or ESCAPED_EXPLANATION.format(call=escaped["call"]))
            fix = escaped.get("fix") or TRANSFORM_FIX.format(call=escaped["call"])
        varying = varying_number(ctx, frame.filename, frame.line) if REUSE_LIMIT in (
            f.get("message") or "") else None
        if varying is not None:  # the argument that keeps a nested region from reuse
            one, fix = one + CLAUSE.format(**varying), VARYING_FIX.format(**varying)
        exported = wrapper_exported(ctx, frame.line) if f["stage"] == "runtime" else None
        if exported is not None:  # an exporter given torch.compile's wrapper, not a failure
            clause, more, fix = export_words(exported)  # of compiled code
            one, expl = f"{one} ({clause})", f"The exception ended the program. {more}"
        caught = sidestep(ctx, cid, f, frame, one)
        if caught is not None:  # a handler compiled code sidesteps, a branch's return
            frame, more, fix = caught
            one, expl = f"{one} ({more})", f"{expl} {more[:1].upper()}{more[1:]}."
        if inside and inside[0]:  # no bug of the program's: torch's limitation
            fix = INTERNAL_FAKE_FIX.format(call=inside[0], fn=inside[1])
        setting = config_behind(ctx, cid, tb, f"{whole or ''}\n{f.get('message') or ''}") \
            if f["stage"] != "runtime" and not (marked or ranged or escaped or ran) else None
        if setting is not None:  # raised in torch's code for a setting the program turned on
            one = (f"{one}; raised in torch's {setting.function}(), which runs for "
                   f"config.{setting.name}, set at line {setting.frame.lineno}"
                   if setting.function else f"{one}; `{setting.name}` is set at line "
                   f"{setting.frame.lineno}")
            expl = (f"{expl} {CONFIG_EXPLANATION.format(name=setting.name)}"
                    .replace("this line", f"line {frame.lineno}"))
            # (where the error is a known one, its own fix says what to do instead)
            fix = (CONFIG_CONFIRM + "." if circumstance(f"{one}\n{whole or ''}", f["stage"])
                   else CONFIG_FIX).format(name=setting.name, line=setting.frame.lineno) + \
                " " + fix
            frame = setting.frame
        severity = "problem"
        # a known error eager raises alike (runtime_fixes) is not a fake kernel's to blame
        verdict = None if internal or marked or eager_fails(torch_said, f["stage"]) else \
            origin_verdict(ctx, f, frame, one)
        if verdict is not None:  # who raised the traced run's exception decides the fix
            origin, one, more = verdict
            expl = f"{expl} {more}"
            if origin == "handled":  # the program's handler around the call took it
                fix, severity = HANDLED_FIX, "info"
            elif not (origin == "fake_kernel" and f["stage"] == "runtime"):  # (at run time
                # the size/stride rule already says to fix register_fake, and how to narrow it)
                fix = origin_fix(origin, op=f.get("fake_op") or f.get("op"),
                                 function=ctx.user_fn_name(cid), run_id=ctx.run_id,
                                 store=ctx.store) or fix
        bug = numpy_guard_bug(f"{whole or ''}\n{f.get('message') or ''}")
        if bug is not None:  # torch's own guard, on a NumPy value it converted
            one, expl, fix = f"{one} ({bug['reason']})", f"{expl} {bug['explanation']}", \
                bug["fix"]
        refusal = refused(ctx, f, fatal)
        if refusal is not None:  # a recompile a setting forbids: what changed, and its fix
            one, expl, fix = refusal
        before = break_at(ctx, cid, frame) if f["stage"] == "dynamo" and \
            f.get("exc_type") != "Unsupported" else None
        if before is not None:  # Dynamo broke the graph at this line, then failed on it
            said = break_words(before)
            one = f"{one} (after Dynamo's graph break at this line: {said})"
            expl = f"{expl} {BREAK_EXPLANATION.format(reason=said)}"
            fix = break_fix(before)
        deep = recursive_call(ctx, f) if f["stage"] in TRACED_STAGES else None
        if deep is not None:  # a recursion traced one level at a time ran out of stack
            frame, one, expl, fix = deep["frame"], deep["reason"], deep["explanation"], \
                deep["fix"]
        check = raising_branch(ctx, frame) if "Data-dependent branching" in one else None
        if check is not None:  # a check on a tensor's value, not a choice between values
            one, fix = one + check["clause"], check["fix"]
        strict = WE.wrapped_warning(ctx, f"{inner}\n{f.get('message') or ''}",
                                    f" at line {frame.lineno}" if frame.lineno else "") \
            if f["stage"] in TRACED_STAGES else None
        if strict is not None:  # torch's warning, an error by the program's own filter
            frame, one, expl, fix = (strict["frame"], strict["reason"], strict["explanation"],
                                     strict["fix"])
        if gb and f.get("exc_type") == "Unsupported":
            more = f.get("gb_explanation") or gb_registry().get(gb, {}).get("Explanation")
            expl = (expl + " " + (more or "")).strip()
        out.append(Diagnosis(KIND, stage=f["stage"], compile_id=cid, reason=one,
                             user_frame=frame, explanation=expl, fix=fix,
                             score=SPEC.score("info" if severity == "info" else "crash"
                                              if fatal else KIND, order=idx),
                             severity=severity, gb_code=gb,
                             torch_message=whole or f.get("message"),
                             details=FailureDetails(exc_type=f.get("exc_type"), fatal=fatal,
                                                    recompile_limit=is_recompile_limit(f),
                                                    injected_bugs=injected,
                                                    function=ctx.user_fn_name(cid),
                                                    surfaced_at=surfaced, raised_in=raised,
                                                    made_at=made_at,
                                                    came_through=(exc or {}).get("compiled")
                                                    if fatal else None)))
    return out
