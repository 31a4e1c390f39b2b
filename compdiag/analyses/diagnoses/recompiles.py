"""Recompiles: which guard failed (the input that changed), for which function, how often, and
how to make the input stable or dynamic.

One diagnosis per (function, guard category, guarded expression); the events are classified at
ingest (store table recompile_events). A function that hit the recompile limit now runs
uncompiled: that ranks in the `limit` band, above every other non-crash. A resume function
(after a graph break) recompiling for the same change as its parent folds into the parent.

Cost (analyses/ranking.py): a guard that kept failing with a new value each time (RECURRING
or more distinct values on one input: a learning rate, a step counter) is a compile every step,
the `recurring_recompile` class, above graph breaks, with the fix torch documents for it
(RECURRING_FIXES). One size recompile with automatic dynamic shapes on is what torch does on
purpose (the dimension is dynamic from then on): information, not a problem."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.guard_words import in_user_terms
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import Words, every, first
from compdiag.analyses.summary import with_decisive
from compdiag.formats.compile_id import first_attempt, frame_of
from compdiag.formats.compiled_code import is_resume_function, is_stack_value
from compdiag.store.reader import compile_id_key

KIND = "recompile"


@dataclass(frozen=True)
class RecompileDetails(Details):
    """`user_frame` is the call that triggered the recompile; `def_line` the compiled
    function's def, `guard_line` the line reading the guarded value, `call_stack` the user
    frames of the triggering call (outermost first, "file:line"); `specialized` the line that
    made a dynamic size a constant; `instances` the class whose instances share the code;
    `also_changed` the other guarded values that differ between the two entries (torch names
    only the first guard that failed)."""
    omit_none: ClassVar[tuple[str, ...]] = ("specialized", "instances", "fatal")

    guard: str
    category: str
    before: str | None
    after: str | None
    values: tuple[str, ...]
    function: str | None
    failed_guard: str
    limit_hit: bool
    def_line: UserFrame = field(default_factory=UserFrame)
    guard_line: UserFrame = field(default_factory=UserFrame)
    call_stack: tuple[str, ...] = ()
    specialized: dict[str, Any] | None = None
    instances: str | None = None
    also_changed: tuple[str, ...] = ()
    # the limit's failure folded under it ended the program (explain sets it: a cause says
    # how the run ended when its consequence did)
    fatal: bool | None = None


@dataclass(frozen=True)
class LimitDetails(Details):
    """A recompile limit with no recorded guard failure (e.g. a partial log)."""
    omit_none: ClassVar[tuple[str, ...]] = ("fatal",)
    limit_hit: bool
    function: str | None
    fatal: bool | None = None


SPEC = KindSpec(KIND, title="recompile", words=("recompile", "recompiles"), style="magenta",
                tie=20, costs={"limit": Cost(900),
                               "recurring_recompile": Cost(600, per_event=20.0, cap=10),
                               "recompile": Cost(200, per_event=20.0, cap=10)},
                details=(RecompileDetails, LimitDetails),
                # Dynamo's own failure at the limit: the guard that kept failing caused it
                causes=(Causes(KIND, "failure", "Dynamo gave up on the function at the "
                               "recompile limit: the recompile diagnosis names the guard that "
                               "kept failing and the call that made it fail",
                               lambda e, c, ctx: _limit_of(e, c)),))


def _limit_of(effect: Diagnosis, cause: Diagnosis) -> bool:
    """The effect is the recompile-limit failure (FailOnRecompileLimitHit included, which may
    end the program) of the function whose limit the cause reports."""
    return (bool(getattr(effect.details, "recompile_limit", False))
            and bool(cause.details.limit_hit)
            and frame_of(effect.compile_id) in {frame_of(c) for c in
                                                (cause.compile_id, *cause.compile_ids)})


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


# -- rules: what changed, why it recompiles, the fix ({src} the guarded expression, {where} the
# function, {tensor} the tensor's name, {dim} the dimension) ------------------------------------
REASONS = {
    "size": "size {src} changed", "stride": "stride {src} changed",
    "dtype": "dtype of {src} changed", "device": "device of {src} changed",
    "requires_grad": "requires_grad of {src} changed",
    "global_state": "global state {src} changed", "training": "train/eval mode {src} changed",
    "global": "global {src} changed", "value": "Python value {src} changed",
    "length": "{src} changed",
    "none": "{src} changed between None and a value",
    "backend": "the backend changed",
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
    "none": "{src} was None when {where} was compiled and is not now (or the reverse): "
            "Dynamo guards on whether it is None, so the value set since (e.g. by the module "
            "itself on its first call) needs a graph of its own.",
    "type": "{src} changed type.",
    "backend": "{where} was compiled under one backend and is now called under another: "
               "torch.compile of the same function with another backend (or a new backend "
               "callable at every call) needs a compile of its own.",
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
                     "should not require grad. Where one compiled forward serves several "
                     "instances of a module (blocks compiled one by one, e.g. FSDP2's "
                     "`block.compile()`), the first block gets the batch and the others get "
                     "activations that require grad: one graph each, compiled once, which is "
                     "expected; more recompiles than that are not.",
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
    "backend": "Compile the function once, with one backend, and reuse the compiled callable; "
               "where a custom backend is built per call, build it once (or wrap it in "
               "`functools.partial` once) so that torch sees the same backend.",
    "none": "Give {src} its final value before the first call (where the code sets it on "
            "first use, set it yourself up front), so that the first compile is the only one.",
}
# A size made dynamic (automatic dynamic shapes, dynamic=True, maybe_mark_dynamic) that a line
# specialised back to a constant: each new size recompiles, and mark_dynamic would only turn
# that into a ConstraintViolationError at the same line.
SPECIALIZED_REASON = "; line {lineno} specialises it to a constant"
SPECIALIZED_EXPLANATION = ("{src} was dynamic, but `{line}` (line {lineno}) specialised it to "
                           "the constant {value} ({why}), so every new size compiles a new "
                           "graph.")
SPECIALIZED_FIX = ("Rewrite line {lineno} so it does not need the concrete size: a Python "
                   "loop over `range(<size>)`, an `if` on an exact size, or a size converted "
                   "to a Python int for a non-symbolic op makes it a constant; vectorise the "
                   "loop or branch with torch ops (`torch.where`), or pad inputs to a few "
                   "fixed sizes. `torch._dynamo.mark_dynamic` does not help here: it raises "
                   "ConstraintViolationError at this line (use `maybe_mark_dynamic` to allow "
                   "the specialisation).")
# Two instances of one class, compiled in turn: they share the method's code object, hence its
# compiled entries, and each instance whose Python attributes differ gets its own graph.
INSTANCES_REASON = "another instance of {cls} ({src} differs)"
INSTANCES_EXPLANATION = ("Instances of {cls} share {fn}()'s compiled code; the instance called "
                         "here differs from the one it was compiled for in {src}, so it got "
                         "its own graph. This is one graph per instance configuration, not a "
                         "changing input: marking dimensions dynamic does not apply.")
INSTANCES_FIX = ("Expected once per distinct instance. To share one graph, keep values that "
                 "differ between instances out of Python attributes (a tensor buffer, "
                 "`self.register_buffer(...)`, is an input, not a constant); with many "
                 "instances compiled in turn, raise `torch._dynamo.config.recompile_limit` to "
                 "their number.")
_ROOT = re.compile(r"^(?:L\['(\w+)'\]|([A-Za-z_]\w*))(?:[.\[]|$)")
_SELF_ID_GUARD = re.compile(r"___check_obj_id\(\s*(?:L\['self'\]|self)\s*,")
# A guard that failed this many times, each time with a new value, recurs every step.
RECURRING = 3
# The fix torch documents for a value that changes every step ("Dealing with Recompilations",
# docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html; torch's own HINT
# in the guard text): first rule whose words all occur in the guard text or the guarded line.
RECURRING_FIXES: tuple[tuple[Words, str], ...] = (
    (every("integer attributes of the nn.Module"),
     "torch.compile treats int attributes of an nn.Module as constants, so {src} changing "
     "every call recompiles every call: set "
     "`torch.compiler.config.allow_unspec_int_on_nn_module = True` (torch's hint), or keep "
     "the counter in a tensor buffer (`self.register_buffer('step', torch.zeros((), "
     "dtype=torch.long))`) or outside the module."),
    (every("param_groups", "lr"),
     "The optimizer's learning rate is a Python float the LR scheduler changes every step: "
     "create the optimizer with a tensor learning rate, `lr=torch.tensor(0.01)`, so that the "
     "scheduler updates the tensor in place (torch's tutorial 'compiling the optimizer with "
     "an LR scheduler')."),
    (every("range("),
     "{src} sets a Python loop's trip count (`range(...)`), so Dynamo unrolls the loop and "
     "specialises on the count: every new value is a new graph. Keep the count fixed, move "
     "the loop out of the compiled function, or write it with tensor ops."),
    (every(), "{src} is a Python number that changes every call and Dynamo guards on its exact "
         "value: wrap it in a tensor (`torch.tensor(value)`, torch's 'Wrapping Constants with "
         "Tensors'), so it is an input of one graph."),
)
AUTOMATIC_DYNAMIC = ("Nothing to do: torch compiles once more for a new size and marks the "
                     "dimension dynamic from then on (automatic dynamic shapes). To save that one "
                     "compile, mark it dynamic before the first call: "
                     "`torch._dynamo.mark_dynamic({tensor}, {dim})`.")
SPECIALISED_01_EXPLANATION = (
    "The function was compiled with dynamic=True, yet the first call's size {value} was "
    "specialised: torch always specialises sizes 0 and 1 (0/1 specialisation), so the next "
    "size recompiled.")
SPECIALISED_01_FIX = (
    "Call it first with a size of 2 or more, or keep the dimension from being specialised: "
    "`torch._dynamo.decorators.mark_unbacked({tensor}, {dim})` before the first call (or "
    "`torch.fx.experimental._config.backed_size_oblivious = True`).")
# A guard compdiag has no category for: torch's own words, and no other category's fix
# (dynamic shapes help a size or stride guard only).
FIX_OTHER = ("Keep what this guard checks the same between calls (torch's words for it are "
             "in the reason).")
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


def tensor_and_dim(source: str) -> tuple[str, str]:
    """`L['x'].size()[0]` -> ('x', '0'), `xs[0].size()[1]` -> ('xs[0]', '1'): the names a
    fix spells (the tensor, not its size)."""
    dim = re.search(r"\[(\d+)\]$", source)
    tensor = re.sub(r"\.(?:size|stride)\(\)\[\d+\]$", "", source)
    return re.sub(r"^L\['(.+?)'\].*$", r"\1", tensor), dim.group(1) if dim else "0"


# torch's own advice in a failed guard ("Guard failed on a parameter, consider using
# torch._dynamo.config.force_parameter_static_shapes = False"): the fix it names.
_TORCH_HINT = re.compile(r"((?:[^.;]*?)consider using (`?)torch\.[\w.]+(?: = \w+)?\2)")


def torch_hint(guard_text: str | None) -> str | None:
    """The advice torch wrote into the failed guard, as a sentence, or None."""
    m = _TORCH_HINT.search(guard_text or "")
    return m.group(1).strip().rstrip(".") + "." if m else None


def recurring_fix(source: str, text: str) -> str:
    """The documented fix for a value that changes every step (RECURRING_FIXES)."""
    return str(first(RECURRING_FIXES, text)).format(src=source)


def recompile_fix(category: str, source: str, *, count: int, limit: bool,
                  fn: str | None, recurring_text: str | None = None,
                  guard_text: str | None = None) -> str:
    tensor, dim = tensor_and_dim(source)
    hint = torch_hint(guard_text)
    if hint is not None:  # torch named the fix for this guard itself (e.g. a parameter)
        hint = f"torch says: {hint[0].lower()}{hint[1:]}"
        return LIMIT_FIX.format(fn=fn or "The function", fix=hint) if limit else hint
    if recurring_text is not None and category in ("value", "global"):
        fix = recurring_fix(source, recurring_text)
        return LIMIT_FIX.format(fn=fn or "The function", fix=fix) if limit else fix
    template = FIXES.get(category)
    fix = template.format(src=source, tensor=tensor, dim=dim) if template else FIX_OTHER
    if category == "size":
        fix += SIZE_REPEATED if count > 1 else SIZE_ONCE
    if limit:
        fix = LIMIT_FIX.format(fn=fn or "The function", fix=fix)
    return fix


@dataclass(frozen=True)
class Cause:
    """What a recompile really was when the guard alone misleads: a size a line specialised,
    or another instance of the same class."""
    frame: UserFrame | None
    head: str | None
    suffix: str
    explanation: str
    fix: str
    spec: dict[str, Any] | None = None
    instances: str | None = None


def other_cause(ctx: Any, frame_no: Any, event: dict[str, Any], category: str, source: str,
                fn: str | None) -> Cause | None:
    spec = ctx.specialization(source, frame_cids(ctx, frame_no)) if category == "size" else None
    if spec is not None:
        at = ctx.frame(spec["filename"], spec["lineno"], spec.get("line"), "torch")
        return Cause(at, None, SPECIALIZED_REASON.format(lineno=spec["lineno"]),
                     SPECIALIZED_EXPLANATION.format(
                         src=source, line=at.line or "?", lineno=spec["lineno"],
                         value=spec.get("value"), why=spec.get("reason") or "specialised"),
                     SPECIALIZED_FIX.format(lineno=spec["lineno"]), spec=spec)
    cls = instances_of(ctx, frame_no, event, source)
    if cls is not None:
        return Cause(None, INSTANCES_REASON.format(cls=cls, src=source), "",
                     INSTANCES_EXPLANATION.format(cls=cls, fn=fn or "the method", src=source),
                     INSTANCES_FIX, instances=cls)
    if is_resume_function(fn) and is_stack_value(source):
        row = ctx.code_row(event["compile_id"]) or {}
        at = ctx.frame(row.get("filename"), row.get("lineno"))
        where = dict(src=source, lineno=at.lineno or "?", line=at.line or "?")
        return Cause(None, STACK_REASON.format(**where), "", STACK_EXPLANATION.format(**where),
                     STACK_FIX.format(**where))
    return None


# A resume function guards on the values it was passed from the stack at its graph break.
STACK_REASON = "the value computed at line {lineno} before its graph break ({src}) changed"
STACK_EXPLANATION = ("Dynamo runs the rest of the function after the graph break at line "
                     "{lineno} (`{line}`) as a new function, passed the values on the stack "
                     "there: {src} is what that line computed. It is a Python value, so the "
                     "resumed code is specialised on it and every new value recompiles it: "
                     "the recompiles are the graph break's consequence.")
STACK_FIX = ("Remove the graph break at line {lineno} (`{line}`, see its graph-break "
             "diagnosis): keep the value a tensor, or let Dynamo capture it "
             "(`torch._dynamo.config.capture_scalar_outputs = True` for `.item()`/`int()`).")


def call_site(ctx: Any, cid: str | None) -> tuple[UserFrame, tuple[str, ...]]:
    """The user's call that triggered the compile (its innermost user frame) and the chain of
    user frames leading to it, "file:line", outermost first."""
    chain = ctx.call_chain(cid)
    return (chain[-1] if chain else UserFrame(),
            tuple(f"{f.filename}:{f.lineno}" for f in chain))


def frame_cids(ctx: Any, frame_no: Any) -> list[str]:
    return [c for c in ctx.compiles if frame_of(c) == frame_no]


def guard_root(source: str) -> str | None:
    """The local a guarded expression starts from: `self` in self.scale, `net` in
    L['net'].b."""
    m = _ROOT.match(source)
    return (m.group(1) or m.group(2)) if m else None


def instances_of(ctx: Any, frame_no: Any, event: dict[str, Any], source: str) -> str | None:
    """The class whose instances share the recompiled code, when the guard is on an object
    argument (`self`, a module passed in) and the recompiled call's object is another instance
    of that class than every earlier compile's (capture's call_stacks); an id guard on `self`
    says so without them."""
    root = guard_root(source)
    failed = event["failed_guard"] or ""
    cid = event["compile_id"]
    mine = (ctx.call(cid).get("objects") or {}).get(root or "")
    if not mine:
        return "its class" if _SELF_ID_GUARD.search(failed) else None
    earlier = set()
    for c in frame_cids(ctx, frame_no):
        if compile_id_key(c) < compile_id_key(cid):
            other = (ctx.call(c).get("objects") or {}).get(root or "")
            if other and other[0] == mine[0]:
                earlier.add(other[1])
    if earlier and mine[1] not in earlier:
        return str(mine[0]).rsplit(".", 1)[-1]
    return None


MAX_ALSO = 3


def also_changed(ctx: Any, frame_no: Any, cid: str, source: str) -> tuple[str, ...]:
    """Guarded values (`X == V` guards) the recompiled entry holds with another value than the
    frame's previous entry, besides the guard torch named: torch reports the first guard that
    failed, and a switch to eval() under no_grad() fails grad_mode first."""
    earlier = sorted((c for c in frame_cids(ctx, frame_no)
                      if compile_id_key(c) < compile_id_key(cid)), key=compile_id_key)
    if not earlier:
        return ()
    old = ctx.r.guard_values(ctx.run_id, earlier[-1])
    new = ctx.r.guard_values(ctx.run_id, cid)
    named = {source, tree_spelling(source)}
    return tuple(f"{g} {old[g]} -> {v}" for g, v in new.items()
                 if g in old and old[g] != v and g not in named
                 and not (g.startswith("type(") and source.startswith(g[5:-1])))[:MAX_ALSO]


def _spec_json(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if spec is None:
        return None
    return {"symbol": spec.get("symbol"), "value": spec.get("value"),
            "reason": spec.get("reason"), "compile_id": spec.get("compile_id"),
            "filename": spec.get("filename"), "lineno": spec.get("lineno"),
            "line": spec.get("line")}


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    limits = dict(ctx.recompile_limits)
    groups: dict[tuple, dict[str, Any]] = {}
    for ev in ctx.r.recompile_events(ctx.run_id):
        frame_no = frame_of(ev["compile_id"])
        key = (frame_no, ev["category"], ev["guarded"])
        groups.setdefault(key, []).append(ev)
    # A resume function recompiles for the same input change as its parent: fold it in.
    def signature(key: tuple, evs: list[dict[str, Any]]) -> tuple:
        return (key[1], evs[0]["before"], evs[-1]["after"])

    parents = {signature(k, evs) for k, evs in groups.items()
               if not is_resume_function(ctx.fn_name(evs[0]["compile_id"]))}
    for key in list(groups):
        evs = groups[key]
        fn = ctx.fn_name(evs[0]["compile_id"]) or ""
        if is_resume_function(fn) and signature(key, evs) in parents and key[0] not in limits:
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
        guard_line = locate(ctx, first["compile_id"], torch=[loc, first["user_stack"] or []])
        call, chain = call_site(ctx, first["compile_id"])
        frame = call or guard_line
        limit = limits.pop(frame_no, None) if limited.get(frame_no) == (frame_no, category,
                                                                        source) else None
        head = REASONS.get(category, "guard {src} failed").format(src=source)
        change = "" if before is None and after is None else (
            f" ({before if before is not None else '?'} -> "
            f"{after if after is not None else 'another value'})")
        explanation = recompile_explanation(category, source, fn, count, first["failed_guard"])
        changing = len(set(values)) >= RECURRING and count >= RECURRING - 1
        guard_text = " ".join(str(x) for x in (first["failed_guard"], first["loc_line"]) if x)
        cause = other_cause(ctx, frame_no, first, category, source, fn)
        # A size that dynamic=True still specialised (torch specialises sizes 0 and 1) and
        # that then recompiled is the problem the user asked dynamic shapes to avoid.
        specialised_01 = (category == "size" and ctx.dynamic_requested(first["compile_id"])
                          and str(before) in ("0", "1"))
        expected = (category == "size" and count == 1 and limit is None and cause is None
                    and ctx.automatic_dynamic(first["compile_id"])
                    and not ctx.dynamic_requested(first["compile_id"]))
        fix = (AUTOMATIC_DYNAMIC.format(tensor=tensor_and_dim(source)[0],
                                        dim=tensor_and_dim(source)[1]) if expected else
               recompile_fix(category, source, count=count, limit=limit is not None, fn=fn,
                             recurring_text=guard_text if changing else None,
                             guard_text=first["failed_guard"]))
        if specialised_01 and cause is None:
            explanation += " " + SPECIALISED_01_EXPLANATION.format(value=before)
            fix = SPECIALISED_01_FIX.format(tensor=tensor_and_dim(source)[0],
                                            dim=tensor_and_dim(source)[1])
        also = also_changed(ctx, frame_no, first["compile_id"], source)
        said = (in_user_terms(ctx, {**first, "before": before, "after": after}, category,
                              source, fn) if cause is None else None)
        if said is not None:
            head, change, explanation = said.head, said.change, said.explanation
            fix = LIMIT_FIX.format(fn=fn or "The function", fix=said.fix) \
                if limit is not None else said.fix
        if cause is not None:
            frame, explanation = cause.frame or frame, cause.explanation
            head, change = cause.head or head, change + cause.suffix
            fix = LIMIT_FIX.format(fn=fn or "The function", fix=cause.fix) \
                if limit is not None else cause.fix
        reason = head + change + ("; also changed: " + ", ".join(also) if also else "")
        score = SPEC.score("recurring_recompile" if changing else "info" if expected else KIND,
                     count)
        torch_message = first["failed_guard"]
        if changing and limit is None and cause is None:
            reason += f", {count} recompiles: a new value every call"
            explanation += (f" It failed {count} times with a new value each time: a compile "
                            "every step.")
        if count > 1 and limit is None:
            # The change above spans several recompiles; torch's own words for the latest
            # (the text a user searches for, "expected 11, actual 12") stay in the reason.
            latest = last["failed_guard"].split("  #")[0].strip()
            reason = with_decisive(reason, latest, from_first=True)
            torch_message = "\n".join(dict.fromkeys((first["failed_guard"],
                                                      last["failed_guard"])))
        if limit is not None:
            score = SPEC.score("limit")
            total = per_frame[frame_no]
            on = (f"{count} times on {source}" if total == count else
                  f"{total} times, {count} of them on {source},")
            plain = f" ({said.head}{said.change})" if said is not None else ""
            reason = (f"recompile limit hit: {fn or 'a function'}() recompiled {on}{plain} "
                      f"and now runs in eager; last guard that failed: "
                      f"{last['failed_guard'].split('  #')[0].strip()[:160]}")
            explanation = (limit.get("explanation") or "") + " " + explanation
            torch_message = "\n".join(x for x in (limit.get("torch_message"),
                                                   last["failed_guard"]) if x)
        out.append(Diagnosis(
            KIND, stage="dynamo",
            compile_id=first_attempt((limit or {}).get("compile_id") or last["compile_id"]),
            reason=reason, user_frame=frame, explanation=explanation.strip(),
            fix=fix, score=score, count=count, compile_ids=tuple(e["compile_id"] for e in evs),
            torch_message=torch_message, severity="info" if expected else "problem",
            details=RecompileDetails(guard=source, category=category, before=before,
                                     after=after, values=tuple(values[:20]), function=fn,
                                     failed_guard=first["failed_guard"][:300],
                                     limit_hit=limit is not None,
                                     def_line=ctx.def_frame(first["compile_id"]),
                                     guard_line=guard_line, call_stack=chain,
                                     specialized=_spec_json(cause and cause.spec),
                                     instances=cause and cause.instances,
                                     also_changed=also)))
    for limit in limits.values():
        fn = ctx.fn_name(limit.get("compile_id"))
        call, _ = call_site(ctx, limit.get("compile_id"))
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=limit.get("compile_id"),
            reason=f"recompile limit hit: {fn or 'a function'}() now runs in eager",
            user_frame=call or locate(ctx, limit.get("compile_id")),
            explanation=limit.get("explanation"),
            fix=recompile_fix("other", "?", count=0, limit=True, fn=fn), score=SPEC.score("limit"),
            torch_message=limit.get("torch_message"),
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
