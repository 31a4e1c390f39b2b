"""Why a recompile really happened when its failed guard alone misleads: a size a line of the
program (or torch's own code) specialised to a constant, another instance of the same class,
automatic dynamic shapes turned off by the program, a value computed before a graph break.

Split from analyses/diagnoses/recompiles.py (the recompile kind), which calls `other_cause`
for each guard group and words the diagnosis; the causes, their words and the facts they
read are here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.guard_words import bare
from compdiag.analyses.locate import source_line
from compdiag.analyses.lost_marks import EXPLANATION as LOST_EXPLANATION, FIX as LOST_FIX, \
    REASON as LOST_REASON, lost_mark
from compdiag.analyses.worker_marks import EXPLANATION as WORKER_EXPLANATION, \
    FIX as WORKER_FIX, REASON as WORKER_REASON, worker_mark
from compdiag.analyses import local_class
from compdiag.analyses.attribute_writes import attribute_write, write_words
from compdiag.analyses.compile_calls import backend_words, repeated_compile
from compdiag.analyses.number_uses import ALTERNATIVES, NUMBER_ONLY_OPS, number_only_use
from compdiag.analyses.recompile_instances import (INSTANCES_EXPLANATION, INSTANCES_FIX,
                                                  INSTANCES_REASON, frame_cids, instances_of)
from compdiag.analyses.recompile_sites import EXPLANATION as SITES_EXPLANATION, FIX as SITES_FIX, \
    REASON as SITES_REASON, call_sites, words as site_words
from compdiag.analyses.recompile_rules import (
    SPECIALIZED_EXPLANATION,
    SPECIALIZED_FIX, SPECIALIZED_LOOP_FIX, SPECIALIZED_NUMBER_EXPLANATION,
    SPECIALIZED_NUMBER_FIX, SPECIALIZED_REASON, SPECIALIZED_ROOT_REASON,
    TORCH_SPECIALIZED_EXPLANATION, TORCH_SPECIALIZED_FIX, TORCH_SPECIALIZED_REASON)
from compdiag.formats.compiled_code import is_resume_function, is_stack_value
from compdiag.formats.guard_source import in_user_spelling


# torch's names for why a symbol was specialised, in words (the rest are said as torch says)
SPEC_REASONS = {"trivial_lhs": "an equality with a constant decided it",
                "range_refined_to_singleton": "a check left it a single possible value"}
# calls that take a number only as a Python number (a size, a count, a scale): a tensor cannot
# stand for it there (probes37e tta_scale_factor_recompile: `F.interpolate(x,
# scale_factor=s)`, whose "pass torch.tensor(value)" half of the fix could not apply)
NUMBER_ONLY = re.compile(r"\b(?:upsample\w*|%s)\(" % "|".join(NUMBER_ONLY_OPS))
SPECIALIZED_NUMBER_ONLY_FIX = (
    "Keep line {lineno}'s use of {src} out of the compiled function: `{call}` takes it only "
    "as a Python number, so no tensor can stand for it; compute what depends on it before the "
    "compiled call and pass the result in (resize outside, compile the model), or let it "
    "compile once per value where it takes a few values.")


NUMBER_USE_REASON = "; line {lineno} takes it only as a Python number (`{call}(...)`)"
NUMBER_USE_EXPLANATION = (
    "{src} is a Python number the compiled code reads as a constant, so each new value "
    "compiles again. Line {lineno} (`{line}`) passes it to `{call}`, which takes it only as a "
    "Python number: a tensor there is read back with `.item()`, which breaks the graph, so "
    "passing it as a tensor does not help.")

NUMBER_USE_FIX = (
    "Keep line {lineno}'s use of {src} out of the compiled function: `{call}` takes it only "
    "as a Python number, so no tensor can stand for it; compute what depends on it before the "
    "compiled call and pass the result in (a tensor, so a new value needs no recompile), or "
    "let it compile once per value where it takes a few values.")


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
    # the Python number a size is tied to (NUMBER_TIED), in the user's spelling
    tied: str | None = None


def other_cause(ctx: Any, frame_no: Any, event: dict[str, Any], category: str, source: str,
                fn: str | None, also: tuple[str, ...] = (), call: UserFrame | None = None
                ) -> Cause | None:
    """`also`: the other guarded values that changed with it (`len(L['xs']) 21 -> 16`);
    `call`: the user's call that triggered the compile (recompiles.call_site)."""
    changed = [m.groups() for a in also if (m := _CHANGED.match(a))]
    also_sizes = [g for g, _, _ in changed if ".size()[" in g]
    local = local_class.local_class(event.get("failed_guard")) if category == "type" else None
    if local is not None:  # a new class per call of the function defining it
        row = ctx.code_row(event["compile_id"]) or {}
        words = dict(src=bare(source), outer=local[0], cls=local[1], fn=fn or "the method")
        return Cause(local_class.class_statement(
            ctx, [row.get("filename"), call.filename if call else None], *local),
            f"type of {bare(source)} changed", local_class.SUFFIX.format(**words),
            local_class.EXPLANATION.format(**words),
            local_class.FIX.format(**words))
    # the program set the attribute the guard reads, at a line of its own, between the calls
    write = attribute_write(ctx, frame_no, event.get("compile_id"), source, category)
    if write is not None:
        at, suffix, explanation, fix = write_words(ctx, write, bare(source), fn)
        return Cause(at, None, suffix, explanation, fix)
    repeated = repeated_compile(ctx) if category == "backend" else None
    if repeated is not None:  # a backend made anew at each torch.compile of one line
        at, suffix, explanation, fix = backend_words(ctx, repeated)
        return Cause(at, None, suffix, explanation, fix)
    # another instance first: its sizes are that module's own (probes30d sn_critic_two_passes)
    cls = instances_of(ctx, frame_no, event, source)
    if cls is not None:
        return Cause(None, INSTANCES_REASON.format(cls=cls, src=source), "",
                     INSTANCES_EXPLANATION.format(cls=cls, fn=fn or "the method", src=source),
                     INSTANCES_FIX, instances=cls)
    sites = call_sites(ctx, frame_no, category)
    if sites is not None:  # several lines calling it in turn (analyses/recompile_sites.py)
        said = site_words(sites, fn, source)
        return Cause(None, None, SITES_REASON.format(**said), SITES_EXPLANATION.format(**said),
                     SITES_FIX.format(**said))
    # a Python number made symbolic (automatic dynamic) that a line needs as a concrete
    # number: a tensor cannot stand for it there (probes34d markov_kstep_power:
    # `matrix_power(transition, horizon)`; the `torch.tensor(value)` fix broke the graph);
    # a math call on it is guard_words' to say, with torch's own op
    spec = _recurring_specialization(ctx, source, frame_cids(ctx, frame_no)) \
        if category == "value" else None
    if spec is not None and "math." not in (spec.get("line") or ""):
        at = ctx.frame(spec["filename"], spec["lineno"], spec.get("line"), "torch")
        why = spec.get("reason") or "specialised"
        where = dict(src=source, line=at.line or "?", lineno=spec["lineno"],
                     value=spec.get("value"), why=SPEC_REASONS.get(why, why))
        loop = (at.line or "").lstrip().startswith("for ") and "range(" in (at.line or "")
        only = NUMBER_ONLY.search(at.line or "")  # an argument no tensor can stand for
        fix = SPECIALIZED_LOOP_FIX if loop else SPECIALIZED_NUMBER_ONLY_FIX if only else \
            SPECIALIZED_NUMBER_FIX
        return Cause(at, None, SPECIALIZED_REASON.format(**where),
                     SPECIALIZED_NUMBER_EXPLANATION.format(**where),
                     fix.format(**where, call=only.group(0).rstrip("(") if only else ""),
                     spec=spec)
    use = number_only_use(ctx, event["compile_id"], bare(source)) \
        if category == "value" and spec is None else None
    if use is not None:  # a Python number a call takes only as one: no tensor stands for it
        at, called = use
        where = dict(src=source, lineno=at.lineno, line=at.line or "?", call=called)
        fix = NUMBER_USE_FIX.format(**where) + (
            f" Or compute it with tensors: {ALTERNATIVES[called]}."
            if called in ALTERNATIVES else "")
        off = source_line(ctx, event["compile_id"], AUTOMATIC_OFF[1][0]) if re.fullmatch(
            r"-?\d+", str(event.get("before") or "")) else None
        if off is not None:  # an int kept static by the program's `dynamic=False`
            fix = STATIC_INT_FIX.format(lineno=off.lineno, line=(off.line or "").strip(),
                                        src=source, call=called) + " Otherwise: " + fix
        return Cause(at, None, NUMBER_USE_REASON.format(**where),
                     NUMBER_USE_EXPLANATION.format(**where), fix)
    spec = ctx.specialization(source, frame_cids(ctx, frame_no)) if category == "size" else None
    # of the sizes that changed together, the one specialised first in the trace: a later one
    # may only follow from it (probes31d gae_rollout_lengths: `range(n_steps)` at 14 made
    # rewards' size constant, and `advantages + values[:-1]` at 19 then values')
    firsts = [ctx.specialization(g, frame_cids(ctx, frame_no)) for g in also_sizes]
    first = min((f for f in firsts if f and spec and f["compile_id"] == spec["compile_id"]),
                key=lambda f: f.get("seq") or 0, default=None)
    reason = SPECIALIZED_REASON
    if first is not None and (first.get("seq") or 0) < (spec.get("seq") or 0):
        spec, source = first, (first.get("sources") or [source])[0]
        reason = SPECIALIZED_ROOT_REASON.replace("{src}", source)
    # a size tied to a Python list's length (its constant, the value the size was made):
    # `torch.tensor(lengths)` inside the compiled code is a tensor of fixed size (probes31b
    # bucket_lengths_list: the batch size specialised to len(lengths) at every new length)
    # or to a Python int that changed with it (probes31a gnn_num_nodes_attr: an nn.Module's
    # `self.num_nodes` sized a buffer the input's node count then met)
    tied = next((g for g, _, new in changed if spec and ".size()[" not in g
                 and new == str(spec.get("value"))), None)
    if tied is not None:
        words = LIST_TIED if tied.startswith("len(") else NUMBER_TIED
        name = in_user_spelling(tied[4:-1] if tied.startswith("len(") else tied)
        last = re.split(r"[.\[\]']+", bare(name).strip(".[]'"))[-1] or name
        read = source_line(ctx, event["compile_id"], re.compile(rf"\b{re.escape(last)}\b"),
                           after=ctx.code_row(event["compile_id"]))
        where = dict(src=in_user_spelling(source), name=name, n=spec.get("value"),
                     lineno=spec["lineno"], line=spec.get("line") or "?")
        return Cause(read, None, *(w.format(**where) for w in words), spec=spec,
                     tied=None if tied.startswith("len(") else name)
    if spec is not None:
        at = ctx.frame(spec["filename"], spec["lineno"], spec.get("line"), "torch")
        return Cause(at, None, reason.format(lineno=spec["lineno"]),
                     SPECIALIZED_EXPLANATION.format(
                         src=source, line=at.line or "?", lineno=spec["lineno"],
                         value=spec.get("value"), why=spec.get("reason") or "specialised"),
                     SPECIALIZED_FIX.format(lineno=spec["lineno"]), spec=spec)
    spec = ctx.specialization(source, frame_cids(ctx, frame_no), lineless=True) \
        if category == "size" else None
    if spec is not None:  # torch's own code needed the value (probes29c audio_unet_varlen)
        return Cause(None, None, TORCH_SPECIALIZED_REASON, TORCH_SPECIALIZED_EXPLANATION.format(
            src=source, value=spec.get("value"), why=spec.get("reason") or "specialised"),
            TORCH_SPECIALIZED_FIX, spec=spec)
    lost = lost_mark(ctx, call) if category == "size" else None
    if lost is not None:  # a mark_dynamic on a tensor the call passes only transformed
        return Cause(ctx.frame(call.filename, lost.get("at", lost["lineno"]), None, "source"),
                     None,
                     *(w.format(**lost) for w in (LOST_REASON, LOST_EXPLANATION, LOST_FIX)))
    built = worker_mark(ctx, call) if category == "size" else None
    if built is not None:  # marked where a DataLoader builds the batch (analyses/worker_marks)
        return Cause(ctx.frame(call.filename, built["lineno"], None, "source"), None,
                     *(w.format(**built) for w in (WORKER_REASON, WORKER_EXPLANATION,
                                                   WORKER_FIX)))
    if category == "size" and not ctx.automatic_dynamic(event["compile_id"]) and \
            not ctx.dynamic_requested(event["compile_id"]):
        for pattern, fix in AUTOMATIC_OFF:
            at = source_line(ctx, event["compile_id"], pattern)
            if at is not None:  # the program turned automatic dynamic shapes off: that line
                where = dict(src=source, lineno=at.lineno, line=at.line or "?")
                return Cause(None, None, AUTO_OFF_SUFFIX.format(**where),
                             AUTO_OFF_EXPLANATION.format(**where), fix.format(**where))
    if is_resume_function(fn) and is_stack_value(source) and \
            not re.search(r"\.(?:size|stride)\(\)", source or ""):  # its value, not its size
        row = ctx.code_row(event["compile_id"]) or {}
        at = ctx.frame(row.get("filename"), row.get("lineno"))
        where = dict(src=source, lineno=at.lineno or "?", line=at.line or "?")
        return Cause(None, STACK_REASON.format(**where), "", STACK_EXPLANATION.format(**where),
                     STACK_FIX.format(**where))
    return None


_CHANGED = re.compile(r"^(\S+) (\S+) -> (\S+)$")
NUMBER_TIED = (
    "; line {lineno} ties it to the Python number {name} ({n}), a constant of each graph",
    "{src} was dynamic, but line {lineno} (`{line}`) ties it to {name}, a Python number "
    "Dynamo bakes into the graph as a constant (it guards {name} == {n}), so the size was "
    "specialised to {n} and every new value is a new graph.",
    "Take the size from the tensor itself ({src} where the code uses {name}), so that it "
    "stays dynamic and one graph serves every size; or keep {name} fixed.")
LIST_TIED_REASON = ("; line {lineno} ties it to the length of the Python list {name} ({n}), a "
                    "constant of each graph")
LIST_TIED_EXPLANATION = (
    "{src} was dynamic, but line {lineno} (`{line}`) ties it to {name}, a Python list whose "
    "length is a constant of the graph (Dynamo guards len({name}); a tensor made from it "
    "inside the compiled code has a fixed size), so the size was specialised to {n} and "
    "every new length is a new graph.")
LIST_TIED_FIX = ("Pass {name} as a tensor made before the call (`torch.tensor({name})` "
                 "outside the compiled function): its length is then a dynamic size like the "
                 "batch's, and one graph serves every length; or pad it to a few fixed "
                 "lengths.")
LIST_TIED = (LIST_TIED_REASON, LIST_TIED_EXPLANATION, LIST_TIED_FIX)
# The program's own setting that keeps every size static: each new size compiles again. The
# setting's line is said in the headline (the call that brought the size stays the line), and
# removing it is the fix (probes28a bert_static_varlen; a `mark_dynamic` on the tensor passed
# holds under it too, probes34c camera_batch_mark_dynamic).
AUTO_OFF_SUFFIX = ", with automatic dynamic shapes off at line {lineno} (`{line}`)"
AUTO_OFF_EXPLANATION = ("Line {lineno} (`{line}`) turned automatic dynamic shapes off, so "
                        "Dynamo compiles {src} static for each new size instead of marking it "
                        "dynamic at its first change: every new size is a compile.")
AUTO_OFF_TAIL = ("by default the first size change makes the dimension dynamic and later "
                 "sizes reuse that graph. To keep static graphs on purpose, pad inputs to a few "
                 "fixed sizes.")
AUTOMATIC_OFF = (
    (re.compile(r"\bautomatic_dynamic_shapes\s*=\s*False\b"),
     "Remove `{line}` (line {lineno}): " + AUTO_OFF_TAIL),
    (re.compile(r"\bdynamic\s*=\s*False\b"),
     "Drop `dynamic=False` from `{line}` (line {lineno}) (a `mark_dynamic` of the size is "
     "kept under it, unless the code specialises the size, where it raises "
     "ConstraintViolationError): " + AUTO_OFF_TAIL),
)
# probes47d sampler_topk_static_recompile: `topk(top_k)` under `dynamic=False`, a new top_k per
# request; without the flag the int went dynamic after one recompile, and topk took it
STATIC_INT_FIX = ("Drop `dynamic=False` from `{line}` (line {lineno}): under it the Python int "
                  "{src} stays a constant, a graph per value; without it the int is made "
                  "dynamic at its second value, and `{call}` takes a dynamic int, so one graph "
                  "serves the values after it.")
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


def _recurring_specialization(ctx: Any, source: str, cids: list[str]) -> dict[str, Any] | None:
    """The line that specialised `source` most often in these compiles, past values 0 and 1
    (torch specialises those on its own: probes33e iwae_k_sweep's `q.rsample((k,))` for k = 1,
    then `math.log(k)` at every other k)."""
    found = [s for c in cids if (s := ctx.specialization(source, [c])) is not None]
    kept = [s for s in found if str(s.get("value")) not in ("0", "1")] or found
    if not kept:
        return None
    lines = [(s.get("filename"), s.get("lineno")) for s in kept]
    best = max(dict.fromkeys(lines), key=lines.count)
    return next(s for s in kept if (s.get("filename"), s.get("lineno")) == best)
