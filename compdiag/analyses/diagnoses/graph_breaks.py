"""Graph breaks: where Dynamo split the graph (or gave up on a function), why in torch's words,
and the change that removes the break.

Explanations and hints are torch's (the break's text, else graph_break_registry.json); the
fixes are compdiag's rules (RULES in analyses/fixes.py: a failure under fullgraph=True prints
them too), keyed on the break's type and refined by its explanation, debug context and the
user's line. Cost: a break that throws the whole function back to eager ranks above one that
only splits it, then by hits; a follow-on of an earlier break ranks below its cause."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from compdiag.analyses.decorator_lines import decorator_line
from compdiag.analyses.not_resumed import not_resumed
from compdiag.analyses.consequences import Causes, same_compile
from compdiag.analyses.built_in_eager import built_in_eager
from compdiag.analyses.decorated_methods import decorated_method_fix
from compdiag.analyses.scalar_reads import BRANCH_WAYS, BRANCHED_LATER, ITEM_FIX, TOLIST_FIX, \
    branched_later
from compdiag.analyses.entered_after_break import (NO_FRAMES_WHY, earlier_at_line,
                                                  entered_after_break, no_frame_compiled,
                                                  precedes_at_line)
from compdiag.analyses.custom_op_fakes import fake_line
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.fixes import (EXIT_STACK_SAID, NUMPY_CALL, exit_stack_entry,
                                     graph_break_fix)
from compdiag.analyses.func_transforms import transform_sent_to_eager as _transform_sent_to_eager
from compdiag.analyses.random_origin import random_origin
from compdiag.analyses.scalar_reads import implicit_read, scalar_read
from compdiag.analyses.resume_lines import resumed_at
from compdiag.analyses.side_effect_words import side_effect_clause, validation_clause
from compdiag.analyses.unbacked_origin import break_origin
from compdiag.analyses.backend_breaks import backend_context, wont_convert
from compdiag.analyses.torch_entry import ENTRY_SKIP, compile_line, entries_that_compiled, entry_of
from compdiag.analyses.gb_registry import URL, gb_registry, gb_type
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.value_writes import VALUE_WORDS, numpy_write, root_words
from compdiag.analyses.library_loop import (WHY as LIBRARY_WHY, CompiledLibraryDetails,
                                            at_call as library_at_call, library_loop)
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate, source_line
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import found
from compdiag.analyses.debug_context import short_context
from compdiag.formats.code_text import assigned_names, branch_condition, call_clause, read_names
from compdiag.formats.compile_id import first_attempt, frame_of, sort_key
from compdiag.formats.compiled_code import is_resume_function, is_stack_value
from compdiag.store.reader import compile_id_key

KIND = "graph_break"


@dataclass(frozen=True)
class GraphBreakDetails(Details):
    omit_none: ClassVar[tuple[str, ...]] = ("url", "follow_on")
    function: str | None
    frame_skipped: bool
    gb_type: str
    debug_context: str
    url: str | None = None
    # torch says an earlier break caused it (a reconstruction failure after a break)
    follow_on: bool | None = None


SPEC = KindSpec(KIND, title="graph break", words=("graph break", "graph breaks"), style="yellow",
                tie=30, costs={"graph_break": Cost(300, per_event=10.0, cap=20)},
                adjust={"frame_skipped": 60.0,  # the whole function thrown back to eager
                        "follow_on": -80.0},  # caused by an earlier break (reconstruction)
                details=(GraphBreakDetails, CompiledLibraryDetails),
                # torch caught the Unsupported when it skipped the frame, and went on
                causes=(Causes(KIND, "failure", "Dynamo skipped the frame after a graph "
                               "break, and the run went on: the break reports it",
                               lambda effect, cause, ctx: (
                                   effect.details.exc_type == "Unsupported"
                                   and ctx.torch_skipped(effect.compile_id)
                                   and same_compile(effect, cause))),
                        # the resume function a break made guards on what the break's line
                        # computed: each new value recompiles it
                        Causes(KIND, "recompile", "the resumed code recompiles on a value "
                               "computed before the graph break, passed across it: the break "
                               "is the cause", lambda effect, cause, ctx: _resumes_after(
                                   effect, cause, ctx)),
                        # a function Dynamo compiled on its own only because the break
                        # inside it sent the call to eager (a forward hook that breaks)
                        Causes(KIND, "recompile", "the break inside this function sent its "
                               "call to eager, so Dynamo compiled it on its own, once per "
                               "closure and value: the break is the cause",
                               lambda effect, cause, ctx: _compiled_apart(effect, cause)),
                        # a break on the value an earlier break's op produced (the resumed
                        # code wraps what the skipped call returned)
                        Causes(KIND, KIND, "the resumed code breaks on the value the earlier "
                               "break's call returned: that break is the cause",
                               lambda effect, cause, ctx: _consumes_output(
                                   effect, cause, ctx)),
                        # a break torch says an earlier break caused (reconstructing the
                        # frame's state after it failed), in the same function
                        Causes(KIND, KIND, "torch says an earlier graph break in this function "
                               "caused it: that break is the cause",
                               lambda effect, cause, ctx: bool(effect.details.follow_on)
                               and not cause.details.follow_on
                               and _same_frame(effect, cause)),
                        # a break in a frame Dynamo traced only because an earlier break at
                        # the same user line ran that line's call in eager
                        Causes(KIND, KIND, "an earlier graph break at this line ran its call "
                               "in eager, and Dynamo traced the called code from there: that "
                               "break is the cause",
                               lambda effect, cause, ctx: bool(effect.details.follow_on)
                               and not cause.details.follow_on
                               and effect.severity == cause.severity == "problem"
                               and earlier_at_line(effect, cause)),
                        # a function Dynamo compiled apart, entered from a break's line
                        Causes(KIND, KIND, "the earlier graph break at the line that calls "
                               "this function ran the call in eager, and Dynamo compiled the "
                               "function on its own, where it broke again: that break is the "
                               "cause", entered_after_break),
                        # a `with NAME(...)` Dynamo could not enter: NAME.__init__ broke,
                        # so the object was built in eager (analyses/built_in_eager.py)
                        Causes(KIND, KIND, "the call that makes the context manager (its "
                               "constructor, or the call at the `with` line) broke the graph, "
                               "so the object was built in eager, and Dynamo cannot enter an "
                               "object made outside its trace: that break is the cause",
                               built_in_eager),
                        # torch.compile around a library's loop (model.generate): the breaks
                        # and recompiles at its call (analyses/library_loop.py)
                        *(Causes(KIND, effect, LIBRARY_WHY, library_at_call)
                          for effect in (KIND, "recompile")),
                        # a function torch.func called from eager, after a break inside
                        # it sent the transform (traced inline at first) to eager
                        Causes(KIND, KIND, "the break inside the function a torch.func "
                               "transform applies sent the transform to eager, where Dynamo "
                               "cannot trace the function: that break is the cause",
                               lambda effect, cause, ctx: _transform_sent_to_eager(
                                   effect, cause, ctx)),
                        # fullgraph=True's "found no compiled frames": every frame skipped
                        Causes(KIND, "failure", NO_FRAMES_WHY, no_frame_compiled),
                        # the soft failure this module reports as the frame's skip
                        Causes(KIND, "failure", "torch caught this Unsupported and ran the "
                               "function in eager: the skipped frame reports it",
                               lambda effect, cause, ctx: cause.details.frame_skipped
                               and effect.details.exc_type == "Unsupported"
                               and not effect.details.fatal
                               and same_compile(effect, cause))))


def _compiled_apart(effect: Diagnosis, cause: Diagnosis) -> bool:
    """The recompiled function is one the break is inside (its line at or after the
    function's def, in its file), and the break came first in an earlier frame that inlined
    it (probes30d act_stats_hook_item: a forward hook's `.item()` broke `forward`, and the
    hook, compiled apart, recompiled to the limit on its closure's `name`)."""
    d, at = getattr(effect.details, "def_line", None), cause.user_frame
    if not (d and d.filename and d.lineno and at and at.lineno) or \
            (d.filename, at.lineno >= d.lineno) != (at.filename, True):
        return False
    mine = {frame_of(c) for c in (*effect.compile_ids, effect.compile_id) if c} - {None}
    theirs = [c for c in (*cause.compile_ids, cause.compile_id) if c]
    return bool(mine & {frame_of(c) for c in theirs}) and any(
        frame_of(c) not in mine and sort_key(c) < min(sort_key(e) for e in effect.compile_ids
                                                      or (effect.compile_id,) if e)
        for c in theirs)


def _same_frame(a: Diagnosis, b: Diagnosis) -> bool:
    """a and b concern compiles of one compiled frame (formats/compile_id.frame_of)."""
    def frames(d: Diagnosis) -> set[str]:
        return {f for f in (frame_of(c) for c in (*d.compile_ids, d.compile_id)) if f}
    return bool(frames(a) & frames(b))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _resumes_after(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The effect recompiles a resume function on a value from the stack at its break, or an
    input's requires_grad it reads first (probes33g), and it starts at a cause's break line."""
    if not (is_resume_function(effect.details.function) and (is_stack_value(
            effect.details.guard) or effect.details.category == "requires_grad")):
        return False
    row = ctx.code_row(effect.compile_id) or {}
    start = (ctx.resolve(row.get("filename")), row.get("lineno"))
    return start in _break_lines(ctx, cause)


def _consumes_output(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The effect breaks in the resume function that starts at the cause's break line, on a
    line that reads a name the cause's line assigned (`s = torch.sparse_coo_tensor(...)`,
    then `s.to_dense()` breaks on the sparse `s`)."""
    if effect is cause or not is_resume_function(effect.details.function):
        return False
    row = ctx.code_row(effect.compile_id) or {}
    if (ctx.resolve(row.get("filename")), row.get("lineno")) not in _break_lines(ctx, cause):
        return False
    made = assigned_names(cause.user_frame.line)
    return bool(made) and bool(made & read_names(effect.user_frame.line))


# A clause of torch's hint that tells the user to change fullgraph: a graph break diagnosis is
# a break Dynamo took, so fullgraph=True (and error_on_graph_break) were off for it; the fix
# keeps the hint's other alternatives (issue 29 §2: never remove an option the run did not set).
_OPTION = re.compile(r"fullgraph|error_on_graph_break", re.I)


def without_unset_options(hints: list[str]) -> list[str]:
    """The hints, less each sentence's alternatives (`X, or Y`) that name fullgraph."""
    out = []
    for hint in hints:
        kept = []
        for sentence in re.split(r"(?<=\.)\s+", hint):
            if not _OPTION.search(sentence):
                kept.append(sentence)
                continue
            rest = [c for c in re.split(r",?\s+or\s+", sentence) if not _OPTION.search(c)]
            if rest:
                kept.append(" or ".join(rest)[0].upper() + " or ".join(rest)[1:])
        if kept:
            out.append(" ".join(kept))
    return out


def _break_lines(ctx: Any, d: Diagnosis) -> set[tuple[str | None, int | None]]:
    """Every (file, line) a break diagnosis' stored rows name: its line and its user stack."""
    lines = {(d.user_frame.filename, d.user_frame.lineno)}
    for row in ctx.r.graph_breaks(ctx.run_id):
        if row["compile_id"] in d.compile_ids:
            for f in [row, *(row.get("user_stack") or [])]:
                lines.add((ctx.resolve(f.get("filename")), f.get("lineno")))
    return lines


def retraced_by_stack_values(ctx: Any) -> set[str]:
    """The compiles that re-traced a resume function because a value passed across its graph
    break changed (a recompile on `___stackN`): a break hit again there is that earlier
    break's consequence (charged to it through the recompile), not a hit of its own."""
    return {first_attempt(e["compile_id"]) for e in ctx.r.recompile_events(ctx.run_id)
            if is_stack_value(e.get("guarded"))
            and is_resume_function(ctx.fn_name(e["compile_id"]))}


# -- the diagnosis -----------------------------------------------------------------------------
# torch's own code breaking the graph on purpose: its explicit `torch._dynamo.graph_break()`
# (the optimizer's `_use_grad` breaks before each step so the step compiles as a graph of its
# own), and an optimizer's step Dynamo skips at a wrapper (the LR scheduler's counter) and
# then compiles as its own frame. The compiled-optimizer recipe (`@torch.compile` around
# `opt.step()`) meets both on every run: information, never a problem (probes28b
# opt_step_cosine_lr: three problems on PyTorch's own recipe). (gb_type words, a torch path the
# break lies in or the skipped function's module.)
TORCH_ON_PURPOSE = (("Call to `torch._dynamo.graph_break()`", "/torch/"),
                    ("Attempted to call function marked as skipped", "module: torch.optim"))
ON_PURPOSE_EXPLANATION = ("torch's own code breaks the graph here on purpose: the optimizer's "
                          "step is compiled as a graph of its own (torch.optim's design), and "
                          "the run pays nothing more for it.")
ON_PURPOSE_FIX = "Nothing to do: the break is torch's design, not something in your code."


def torch_on_purpose(gb: str, lib: dict[str, Any] | None, debug: str, reason: str) -> bool:
    """Whether a break is one torch's own code makes on purpose (TORCH_ON_PURPOSE)."""
    where = " ".join(str(x) for x in ((lib or {}).get("filename"), debug, reason) if x)
    where = where.replace("\\", "/")
    return any(gb.startswith(words) and mark in where for words, mark in TORCH_ON_PURPOSE)


# where the program registers a module backward hook (a break "Module-level backwards hooks
# require compiled autograd" names the module machinery, not the user's registration)
BACKWARD_HOOK = re.compile(r"\.register_(?:full_)?backward(?:_pre)?_hook\(")
FOLLOW_ON = ("caused by an earlier graph break",)
# the value Dynamo left where an earlier break was put off (a `for ... in range(n)` whose n was
# data-dependent: its resume function then broke on `next()`/`python_type()` of it, and ranked
# above the break that caused it, set33/gpu decode_len_item_range_break)
DELAYED = "DelayGraphBreakVariable"
# Break types only an earlier break makes: the frame's state rebuilt (reconstructed) after a
# break failed, or an object had to cross a break ("... escaped Dynamo-traced region").
FOLLOW_ON_TYPES = ("Reconstruction failure", "Reconstruction of ",
                   "escaped Dynamo-traced region",
                   # a generator Dynamo cannot rebuild when resuming after a break (probes28b
                   # clip_nonfinite_step: ranked above the data-dependent break it followed)
                   "Generator reconstruction")


# Break types whose words describe Dynamo's handling of a call, not the call: the headline
# also names the function the user's line called (probes31b request_bytes_decode: np.frombuffer)
CALL_MACHINERY = ("Failed to convert args/kwargs to proxy", "Unsupported context manager",
                  "attempted to trace numpy function unsupported by PyTorch",
                  "Unexpected type in sourceless builder")  # probes33e wind_vonmises_sampler
# probes29a dedup_ids_fake: `torch.unique(ids).numel()` sizing a fake implementation's output;
# the capture setting removed the break (new_dynamic_size alone did not)
FAKE_DYNAMIC_FIX = ("{op}'s fake implementation computes its output size from the data, "
                    "which fake tensors do not have: allocate it with a size from "
                    "`torch.library.get_ctx().new_dynamic_size()` and set "
                    "`torch._dynamo.config.capture_dynamic_output_shape_ops = True` so Dynamo "
                    "traces the op with that unbacked size.")
HOP_WORDS = {"tag_activation_checkpoint": "activation checkpointing (torch.utils.checkpoint)",
             "cond": "torch.cond", "while_loop": "torch.while_loop",
             "map_impl": "torch._higher_order_ops.map",
             "flex_attention": "flex_attention", "scan": "scan",
             "invoke_subgraph": "a nested compiled region (invoke_subgraph)",
             "register_hook": "a gradient hook registered in compiled code (Tensor.register_hook)"}
# the fix where the operator decides it (torch's hint guesses checkpointing for any operator)
HOP_FIXES = {"register_hook": (
    "Dynamo traces a hook registered inside compiled code as a subgraph, which may not change "
    "anything outside itself (a module attribute, a list): register the hook outside the "
    "compiled function, on a tensor the forward returns, or keep the registration in a small "
    "`@torch.compiler.disable` helper (a graph break there, the hook then runs as written); "
    "or return the gradient from the hook's caller instead of storing it.")}
def _in_a_callee(ctx: Any, g: dict[str, Any]) -> bool:
    """Whether the break's line is in a function the compiled one calls (Dynamo inlined it)."""
    cid = g["cids"][0] if g["cids"] else None
    return ctx.def_span(cid) is not None and not ctx.in_function(cid, g["frame"])


def _after_at_line(ctx: Any, g: dict[str, Any], groups: Any) -> bool:
    """Another break at the same user line came first, in a frame compiled before this one:
    that break ran the line's call in eager, which is how Dynamo came to trace this frame at
    all (probes29a meters_subclass_path: a `__torch_function__` subclass broke the helper at
    `seg.norm(...)`, then the subclass's own frame, traced from eager, raised a TypeError
    inside torch's overrides, and that follow-on ranked first). Not a resume function: that
    is the same function going on after the break, whose own break is its own (corpus
    gb_context_manager: `with open(...)` broke on `open`, then its resume on the `with`)."""
    if not g["cids"] or is_resume_function((ctx.code_row(g["cids"][0]) or {}).get("co_name")):
        return False
    return any(o is not g and precedes_at_line(o["frame"], o["cids"], g["frame"], g["cids"])
               for o in groups)


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    """One diagnosis per (user line, graph-break type), counting every hit; and one for a
    library loop torch.compile wrapped, the breaks at its call folded under it."""
    out = library_loop(ctx, KIND, SPEC.score(KIND, 20))
    registry = gb_registry()
    retraced = retraced_by_stack_values(ctx)
    groups: dict[tuple, dict[str, Any]] = {}
    rows = list(ctx.r.graph_breaks(ctx.run_id))
    # torch's "WON'T CONVERT fn ..." is its note that it skipped the frame a break in the same
    # compile made it give up on; that break says so (probes32a ddpm_schedule_index: the
    # backend failure listed twice)
    said = {r["compile_id"] for r in rows if not wont_convert(r)}
    entered = entries_that_compiled(ctx, rows)
    for row in rows:
        cid = row["compile_id"]
        if wont_convert(row) and cid in said:
            continue
        if ENTRY_SKIP in (row.get("reason") or "") and entry_of(row) in entered:
            continue  # a frame of the user's compiled under an entry of the same class
        code = (row.get("gb_code") or "").upper() or None
        kind = (gb_type(code) or row.get("gb_type_inner") or row.get("gb_type")
                or row["reason"])
        frame = locate(ctx, cid, torch=[{"filename": row.get("filename"),
                                         "lineno": row.get("lineno"), "line": row.get("line")},
                                        row.get("user_stack") or []])
        if row.get("lib_frame") and cid and not row.get("hop"):  # inside library code: the
            frame = resumed_at(ctx, cid, frame) or frame  # resume function's line; not in
            # a higher-order op's body (a hook's), whose own line is the side effect (probes35f)
        # two library statements under one user line are two breaks (probes25: two
        # transformers logging sites under `loss = model(...)` were one panel)
        lib = row.get("lib_frame") if isinstance(row.get("lib_frame"), dict) else {}
        # ... but not two lines of code torch generated (compiled autograd's graph,
        # `<eval_with_key>.7:199`, :200, ...: one cause, 42 panels in probes42d
        # regional_compile_ckpt_ca)
        inside = (ctx.resolve(lib.get("filename")), lib.get("lineno")) \
            if lib.get("filename") and ctx.resolve(lib.get("filename")) != frame.filename \
            and not str(lib.get("filename")).startswith("<") else None
        wrote = numpy_write(ctx, row)
        if wrote is not None:  # the program's line that put the NumPy value there
            frame, inside = wrote["frame"], None
        decorated = decorator_line(ctx, cid, row) if lib else None
        if decorated is not None:  # a context manager decorating the function: its line
            frame, inside = decorated, None
        asked = compile_line(ctx, frame) if ENTRY_SKIP in (row.get("reason") or "") else None
        if asked is not None:  # at the `.compile()` that wrapped torch's code, not its call
            frame = asked
        key = (frame.filename, frame.lineno, kind, inside)
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"order": len(groups) + 1, "rows": [], "first": row,
                               "code": code, "gb_type": kind, "frame": frame,
                               "entry": registry.get(code or "", {}), "skipped": False,
                               "cids": [], "skipped_rows": [], "retraced": 0}
        g["rows"].append(row)
        g["retraced"] += bool(cid) and first_attempt(cid) in retraced
        g["skipped"] = g["skipped"] or bool(row.get("frame_skipped"))
        if row.get("frame_skipped"):
            g["skipped_rows"].append(row)
        if cid and cid not in g["cids"]:
            g["cids"].append(cid)
    for g in groups.values():
        first, entry = g["first"], g["entry"]
        explanation = first.get("explanation") or entry.get("Explanation")
        hints = list(first.get("hints") or []) or [h for h in entry.get("Hints", [])
                                                   if "{" not in h]
        debug = first.get("debug_context") or ""
        count = max(1, len(g["rows"]) - g["retraced"])
        fix = graph_break_fix(g["gb_type"], explanation or "", debug, g["frame"].line or "",
                              without_unset_options(hints),
                              lib_frame=first.get("lib_frame"),
                              called=_in_a_callee(ctx, g))
        follow_on = len(groups) > 1 and (found(FOLLOW_ON, *hints)
                                         or any(t in g["gb_type"] for t in FOLLOW_ON_TYPES)
                                         or DELAYED in f"{debug} {explanation}"
                                         or _after_at_line(ctx, g, groups.values()))
        score = SPEC.score(KIND, count, *(("frame_skipped",) if g["skipped"] else ()),
                     *(("follow_on",) if follow_on else ()), order=g["order"])
        fn = ctx.fn_name(g["cids"][0]) if g["cids"] else None
        reason = g["gb_type"]
        short = backend_context(g["gb_type"], explanation, first.get("torch_message") or "") \
            or short_context(debug) \
            or root_words(first.get("root_cause"), first.get("root_value"), g["gb_type"])
        if short:
            reason += f" ({short})"
        reason += EXIT_STACK_SAID * (exit_stack_entry(g["frame"].line) is not None) + \
            side_effect_clause(g["gb_type"], debug, g["frame"].line) + \
            validation_clause(first.get("lib_frame"), g["frame"].line)
        if fix in (ITEM_FIX, TOLIST_FIX) and (later := branched_later(
                ctx.source_text(g["frame"].filename), g["frame"].lineno, g["frame"].line)):
            fix = BRANCHED_LATER.format(lineno=later[0], text=later[1]).lstrip() + BRANCH_WAYS
        origin = break_origin(ctx, g["cids"][0] if g["cids"] else None, g["gb_type"])
        if origin is not None:  # the op that made the data-dependent number it decides on
            reason, fix = reason + origin[0], origin[1]
        wrote = numpy_write(ctx, first)
        if wrote is not None:
            reason += f", {wrote['name']} written from `{wrote['call']}` at line " \
                      f"{g['frame'].lineno}"
            fix = wrote["fix"]
        elif "data-dependent branching" in g["gb_type"].lower():  # what the line tests
            cond = branch_condition(g["frame"].line)
            reason += ", in an `assert` on a tensor's value" if (g["frame"].line or "").lstrip(
            ).startswith("assert ") else f", on `{cond}`" if cond else ""
        lib = first.get("lib_frame") if isinstance(first.get("lib_frame"), dict) else None
        if g["gb_type"] in CALL_MACHINERY:
            # torch's words are about Dynamo's machinery: name the user's call it could not
            reason += call_clause(g["frame"].line, reason, into=(lib or {}).get("name"),
                                  home=(lib or {}).get("filename"))
        implicit = implicit_read(f"{short or ''} {g['gb_type']}", g["frame"].line)
        if implicit:  # a read the line makes without .item() (min/max, an index)
            reason += f", {implicit} at line {g['frame'].lineno}"
        read = scalar_read(short, g["frame"].line)
        if read:  # the user's call that read a tensor's value into Python
            reason += f", from `{read}` at line {g['frame'].lineno}" + (
                " (NumPy, traced as torch ops)" if NUMPY_CALL.match(read) else "")
        drawn = random_origin(ctx, g["cids"][0] if g["cids"] else None, g["frame"])
        if drawn is not None:  # an operand the program drew with Python's random just before
            reason += f", with {drawn['name']} from `{drawn['call']}` at {drawn['at']}"
            fix = drawn["fix"]
        fake = fake_line(ctx, g["cids"][0] if g["cids"] else None, lib, g["frame"].line,
                         first.get("debug_context"))
        if fake is not None:  # inside the program's own fake implementation of a custom op
            g["frame"], op = fake
            reason += f", in the fake implementation of custom op {op}() (register_fake)"
            fix = FAKE_DYNAMIC_FIX.format(op=op)
        elif lib and lib.get("line") and ctx.resolve(lib.get("filename")) != g["frame"].filename:
            # inside library code the user's line calls: the library's statement torch names
            stmt = lib["line"] if len(lib["line"]) <= 80 else lib["line"][:77] + "..."
            reason += (call_clause(g["frame"].line, reason, into=lib.get("name"),
                                   home=lib.get("filename"))
                       + f", at `{stmt}` in {lib.get('name') or 'library code'}() "
                       f"({Path(lib.get('filename') or '?').name}:{lib.get('lineno')})")
        hooked = (source_line(ctx, g["cids"][0] if g["cids"] else None, BACKWARD_HOOK)
                  if "backwards hooks require" in g["gb_type"] else None)
        if hooked is not None:  # the user's registration the module hook break comes from
            reason += (f", from the backward hook registered at line {hooked.lineno} "
                       f"(`{hooked.line}`)")
        if first.get("hop"):  # the higher-order operator's body it broke in (capture's)
            reason += f", inside {HOP_WORDS.get(first['hop'], first['hop'])}"
            fix = HOP_FIXES.get(first["hop"], fix)
        if g["skipped"]:
            explanation = f"{explanation or ''} {not_resumed(ctx, g['skipped_rows'], count)}"
            explanation = explanation.strip()
        fix = decorated_method_fix(reason, g["frame"].line,
                                   ctx.source_text(g["frame"].filename)) or fix
        purpose = not g["skipped"] and torch_on_purpose(g["gb_type"], lib, debug, reason)
        if purpose:
            explanation, fix = ON_PURPOSE_EXPLANATION, ON_PURPOSE_FIX
            score = SPEC.score("info", order=g["order"])
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=g["cids"][0] if g["cids"] else None,
            reason=reason, user_frame=g["frame"], explanation=explanation, fix=fix,
            score=score, gb_code=g["code"], hints=tuple(hints), count=count,
            compile_ids=tuple(g["cids"]), torch_message=first.get("torch_message"),
            severity="info" if purpose else "problem",
            details=GraphBreakDetails(function=fn, frame_skipped=g["skipped"],
                                      gb_type=g["gb_type"], debug_context=debug,
                                      url=URL.format(code=g["code"].lower()) if g["code"]
                                      else None, follow_on=follow_on or None)))
    return out + _soft_skips(ctx)


# torch's explanation of an Unsupported raised as a compile started (convert_frame), which it
# catches, logging "torch.compile will skip tracing the frame ... and fall back to eager" only
# when graph_breaks logging is on: the frame runs in eager at every call, nothing compiled.
SOFT_SKIP_FIXES = (
    ("functorch", "The compiled function is called from inside a torch.func transform "
     "(`vmap`, `grad`, `jacrev`, `hessian`) applied outside torch.compile, which Dynamo "
     "cannot trace into: compile the transformed function instead, "
     "`torch.compile(vmap(jacrev(f)))`, with `f` itself left uncompiled."),)


_TRANSFORM = re.compile(r"\b(vmap|grad|jacrev|jacfwd|hessian|jvp|vjp)\(")


def _soft_skips(ctx: Any) -> list[Diagnosis]:
    """A compile that raised Unsupported and whose program went on: torch caught it and ran
    the frame in eager (probes30b flow_jacobian, probes30d per_sample_grads_vmap: a failure
    with a fix about fullgraph=True, which neither program used). A graph break that skipped
    the frame, at the failure's line; the failure folds under it."""
    out = []
    for f in ctx.failures:
        if f.get("exc_type") != "Unsupported" or f.get("stage") != "dynamo" or \
                f is ctx.ending_failure or f.get("recompile_limit") or \
                not (f.get("filename") and f.get("lineno")):
            continue
        cid = f.get("compile_id")
        said = f"{f.get('message') or ''} {f.get('gb_explanation') or ''}"
        fix = next((text for word, text in SOFT_SKIP_FIXES if word in said.lower()), None)
        if fix is None:
            continue
        fn = ctx.user_fn_name(cid)
        ts = _TRANSFORM.findall(f.get("line") or "")
        inside = f" inside `{'('.join(ts)}(...{')' * len(ts)}`" if ts else ""
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=cid,
            reason=f"Dynamo skipped the frame: {(f.get('message') or '').strip()}; torch runs "
                   f"{fn or 'the function'}() in eager at every call{inside}",
            user_frame=ctx.frame(f["filename"], f["lineno"], f.get("line"), evidence="torch"),
            explanation=(f.get("gb_explanation") or "").strip(), fix=fix,
            score=SPEC.score(KIND, 1, "frame_skipped"), gb_code=f.get("gb_code"), count=1,
            compile_ids=(cid,) if cid else (), torch_message=f.get("torch_message"),
            details=GraphBreakDetails(function=fn, frame_skipped=True,
                                      gb_type=(f.get("message") or "").strip(),
                                      debug_context="")))
    return out


# -- what a break costs a timed run (compdiag perf) --------------------------------------------
@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    if diagnosis.kind != KIND:
        return None
    fn = diagnosis.details.function
    parts = timings.frame_graphs(fn)
    if diagnosis.details.frame_skipped and not parts:
        return structural(KIND, 0.6, diagnosis, f"Dynamo could not resume: {fn or 'the function'}"
                          "() runs entirely in eager (no compiled graph to time)")
    impact, evidence, basis = break_cost(parts, timings.share(parts), fn, timings)
    return Limiter(KIND, impact, basis, diagnosis.reason, evidence,
                   tuple(g["compile_id"] for g in parts) or diagnosis.compile_ids,
                   diagnosis.fix, diagnosis.user_frame)


def break_cost(parts: list[dict[str, Any]], s: float, fn: str | None, timings: Any
               ) -> tuple[float, str, str]:
    """What a graph break costs, measured where possible: every graph but the last of the
    function ends at a break, so its outputs go to memory and are read back by the next graph
    instead of staying in registers; the capture timed one copy of those outputs (a write and
    a read of the same bytes). impact = that copy time over the function's compiled time, times
    the function's share of the run. Without the copy time (older stores), the structural
    guess (k-1)/k of the share."""
    k = len(parts)
    name = fn or "the function"
    ordered = sorted(parts, key=lambda g: compile_id_key(g["compile_id"]))
    crossing = ordered[:-1] if k >= 2 else ordered
    weight, fmt_time = timings.weight, timings.fmt_time
    frame_t = sum(weight(g) * g["compiled"]["median"] for g in parts)
    copies = [g.get("output_copy_s") for g in crossing]
    if frame_t > 0 and copies and all(c is not None for c in copies):
        copy_t = sum(weight(g) * c for g, c in zip(crossing, copies))
        frac = min(1.0, copy_t / frame_t)
        mb = sum((g.get("output_bytes") or 0) for g in crossing) / 1e6
        per_call = sum(c for c in copies if c is not None)
        return s * frac, (
            f"splits {name}() into {max(k, 2)} compiled graphs holding {s:.0%} of the compiled "
            f"time; the {mb:.1f} MB crossing the break take {fmt_time(per_call)} "
            f"per call to write and read back (measured copy), {frac:.0%} of these graphs' "
            "compiled time; the eager code between the graphs comes on top (not measured)"), \
            "measured"
    return s * (k - 1) / k if k >= 2 else s * 0.5, (
        f"splits {name}() into {max(k, 2)} compiled graphs holding {s:.0%} of the compiled time; "
        "nothing fuses across the break and the code between the graphs runs in eager "
        "(structural estimate: no copy timing in this store)"), "structural"
