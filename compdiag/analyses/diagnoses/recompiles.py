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
purpose (the dimension is dynamic from then on): information, not a problem. The words (what
changed, why, the fix, per guard category) are analyses/recompile_rules.py's."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Iterator

from compdiag.analyses.config_suspects import suspect, suspect_fix
from compdiag.analyses.consequences import Causes
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.guard_words import bare, in_user_terms, previous_compile
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.limit_words import LOWERED_FIX, LOWERED_REASON, lowered_limit
from compdiag.analyses.locate import locate
from compdiag.analyses.lowering_guards import torch_specialised
from compdiag.analyses.tied_sizes import tied_fix
from compdiag.analyses.ranking import Cost
from compdiag.analyses.recompile_causes import other_cause
from compdiag.analyses.global_reads import global_read, rebound_at, replaced_at
from compdiag.analyses.guard_events import loc_of as _loc_of, usual_read as _usual_read, \
    values_seen
from compdiag.analyses.guard_changes import also_changed
from compdiag.analyses.recompile_instances import frame_cids, instance_frame
from compdiag.analyses.recompile_rules import (  # noqa: F401 - tests read some here
    AUTOMATIC_DYNAMIC, AUTOMATIC_DYNAMIC_SCALAR, BOOL_FLAG, KEYWORD_SETS, LIMIT_ENDED, LIMIT_FIX,
    LIMIT_RUNS_ON,
    MODE_CATEGORIES, MODE_SWITCH, ON_PURPOSE, OPTIONAL_ARGUMENT, RANGE_01_EXPLANATION,
    RANGE_01_FIX, RANGE_01_REASON, REASONS, RECURRING, REQUIRES_GRAD_CHANGE, SAID_IN_LIMIT,
    SPECIALISED_01_EXPLANATION, SPECIALISED_01_FIX, STRING_VALUE, VALUE_GUARDS,
    quoted, recompile_explanation, recompile_fix, tensor_and_dim, tree_spelling)
from compdiag.analyses.layer_numbers import layer_number
from compdiag.analyses.summary import with_decisive
from compdiag.analyses.zero_one import (ZERO_ONE_EXPLANATION, ZERO_ONE_FIX, ZERO_ONE_LIMIT_FIX,
                                       new_value as _after, zero_one_bounded, zero_one_events,
                                       zero_one_limits)
from compdiag.analyses.bool_flags import COND_PRED_FIX, bool_flag
from compdiag.analyses.optimizer_state import first_step_state
from compdiag.formats.code_text import call_clause
from compdiag.analyses.call_arguments import keyword_named, passed_as
from compdiag.analyses.float_args import specialised_use
from compdiag.formats.compile_id import first_attempt, frame_of
from compdiag.formats.compiled_code import is_resume_function, resumed_function
from compdiag.formats.guard_source import in_user_spelling, key_position
from compdiag.formats.words import plural

KIND = "recompile"


@dataclass(frozen=True)
class RecompileDetails(Details):
    """`user_frame` is the call that triggered the recompile; `def_line` the compiled
    function's def, `guard_line` the line reading the guarded value, `call_stack` the user
    frames of the triggering call (outermost first, "file:line"); `specialized` the line that
    made a dynamic size a constant; `instances` the class whose instances share the code;
    `also_changed` the other guarded values that differ between the two entries (torch names
    only the first guard that failed)."""
    omit_none: ClassVar[tuple[str, ...]] = ("specialized", "instances", "fatal", "recurring",
                                            "tied_to")

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
    # the guard failed again and again with a new value each time (a learning rate, a step
    # counter): a compile every step (the recurring_recompile class)
    recurring: bool | None = None
    # the Python number a size was tied to (recompile_causes.NUMBER_TIED)
    tied_to: str | None = None


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
                               lambda e, c, ctx: _limit_of(e, c)),
                        # the function's other recompiles, each once, that added up to the
                        # limit (probes30d gradual_unfreeze: one per block unfrozen)
                        # a size tied to the Python number this recompile's guard changes
                        # (probes32b clip_loss_label_cache: a second problem at __init__)
                        Causes(KIND, KIND, "a size tied to the Python number whose changes "
                               "this recompile names", lambda e, c, ctx: _tied_to(e, c, ctx)),
                        Causes(KIND, KIND, "one of the recompiles that brought the function to "
                               "the recompile limit", lambda e, c, ctx: bool(c.details.limit_hit)
                               and not e.details.limit_hit and e.severity == "info"
                               and frame_of(e.compile_id) == frame_of(c.compile_id))))


def _tied_to(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    tied = getattr(effect.details, "tied_to", None)
    return bool(tied) and effect is not cause and frame_of(effect.compile_id) == frame_of(
        cause.compile_id) and in_user_spelling(getattr(cause.details, "guard", "")) == tied


def _limit_of(effect: Diagnosis, cause: Diagnosis) -> bool:
    """The effect is the recompile-limit failure (FailOnRecompileLimitHit included, which may
    end the program) of the function whose limit the cause reports."""
    return (bool(getattr(effect.details, "recompile_limit", False))
            and bool(cause.details.limit_hit)
            and frame_of(effect.compile_id) in {frame_of(c) for c in
                                                (cause.compile_id, *cause.compile_ids)})


_LOOPS = re.compile(r"\s*(?:for\b|(?!(?:if|elif|while)\b)[^#]*\[.*\bfor\b.+\bin\b)")
# A function's own argument (`mask`, `L['mask']`), not an attribute or a global.
_ARGUMENT = re.compile(r"^(?:L\['\w+'\]|\w+)$")

# Guards on a value the function read at a line torch names (a container's length or keys, a
# Python value, a global): the recompile is at that line, the call beside it (probes31: six
# blind users put it there; torch's guard text ties it there)
READ_AT_LINE = ("length", "value", "global", "dict_contains", "none", "type", "size_order",
                "attribute")
_WRAPPERS = {"len", "list", "dict.keys", "type", "not", "id", "hasattr"}
_OBJECT = re.compile(r"[LG]\['[^']+'\](?:\.[A-Za-z_]\w*)*|[A-Za-z_][\w.]*")


def _read_object(source: str) -> str:
    """The object a guard reads, without torch's wrappers: `len(batch)`,
    `list(dict.keys(batch))[2]` and `batch['a']` all read `batch`."""
    return next((t for t in _OBJECT.findall(source or "") if t not in _WRAPPERS), source)


# one item of a container, at the end of a guard source: `['relu']`, `[0]`
_ITEM = re.compile(r"\[(?:'[^'\]]*'|\d+)\]$")
_KEYWORDS = re.compile(r"^len\((?:L\['kwargs'\]|kwargs)\)$")


def _library_nodes(ctx: Any, frame_no: Any, loc: dict[str, Any] | None) -> Iterator[Any]:
    """The user stacks of the graph nodes made at the library line a guard is tied to (torch
    names `nn/utils/rnn.py:465 in pad_sequence`; its nodes' stacks name the user's line that
    called it: probes32d pad_sequence_sensor_batches, at line 18, not the call): the first
    compile of the frame that has one. A generator, so that locate reads the graph nodes only
    where torch's own frames named no user line (most guards never reach it)."""
    where = str((loc or {}).get("filename") or "").replace("\\", "/").lstrip("/")
    if not where:
        return
    for cid in frame_cids(ctx, frame_no):
        for n in ctx.r.every_graph_nodes(ctx.run_id, cid):
            if n.get("lineno") == loc.get("lineno") and n.get("stack") and str(
                    n.get("filename") or "").replace("\\", "/").endswith("/" + where):
                yield n["stack"]
                return


def another_call(ctx: Any, cid: str) -> bool:
    """The compile's call is at another user line than the compile before it of the same
    frame (the function is called from two places)."""
    prev = previous_compile(ctx, cid)
    here, there = call_site(ctx, cid)[0], call_site(ctx, prev)[0] if prev else UserFrame()
    return bool(here.lineno and there.lineno) and \
        (here.filename, here.lineno) != (there.filename, there.lineno)


def made_dynamic(ctx: Any, first: dict[str, Any], cid: str, source: str | None) -> bool:
    """Whether the compile `cid` that the recompile made stopped guarding the value it failed
    on (`n == 1` in the compile before, no `n == V` now, while that compile's guards were
    stored): Dynamo made the input symbolic."""
    if not source or first.get("before") is None or not ctx.r.guard_values(ctx.run_id, cid):
        return False
    return all(ctx.r.guard_value(ctx.run_id, cid, spelling) is None
               for spelling in dict.fromkeys((source, tree_spelling(source))))



@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]



def _float(value: str | None) -> bool:
    """Whether a guard's value is a Python float literal (`0.7999999999999999`, `1e-05`)."""
    try:
        return not re.fullmatch(r"-?\d+", value or "") and isinstance(float(value or ""), float)
    except ValueError:
        return False


def call_site(ctx: Any, cid: str | None) -> tuple[UserFrame, tuple[str, ...]]:
    """The user's call that triggered the compile (its innermost user frame) and the chain of
    user frames leading to it, "file:line", outermost first."""
    chain = ctx.call_chain(cid)
    earlier = cid
    while not chain and earlier:
        # a compile that hit the recompile limit never started (no call of its own stored):
        # the call into the same frame before it, the loop's line that keeps calling it
        earlier = previous_compile(ctx, earlier)
        chain = ctx.call_chain(earlier) if earlier else []
    return (chain[-1] if chain else UserFrame(),
            tuple(f"{f.filename}:{f.lineno}" for f in chain))


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
    positions: dict[tuple, str] = {}  # a dict's key positions: one finding, its key order
    for ev in ctx.r.recompile_events(ctx.run_id):
        frame_no = frame_of(ev["compile_id"])
        guarded = ev["guarded"]
        if (at := key_position(guarded)) is not None:  # guard_words._key_order's
            guarded = positions.setdefault((frame_no, at[0]), guarded)
        key = (frame_no, ev["category"], guarded)
        groups.setdefault(key, []).append(ev)
    # A resume function recompiles for the same input change as its parent: fold it in.
    def signature(key: tuple, evs: list[dict[str, Any]]) -> tuple:
        return (key[1], evs[0]["before"], evs[-1]["after"])

    parents = {signature(k, evs) for k, evs in groups.items()
               if not is_resume_function(ctx.fn_name(evs[0]["compile_id"]))}
    lengths = {(k[0], k[2][4:-1]) for k in groups if str(k[2]).startswith("len(")}
    folded: dict[Any, int] = {}  # recompiles of a frame folded into another of its guards
    for key in list(groups):
        evs = groups[key]
        fn = ctx.fn_name(evs[0]["compile_id"]) or ""
        if is_resume_function(fn) and signature(key, evs) in parents and key[0] not in limits:
            del groups[key]
        elif (str(key[2]).startswith("not ") and (key[0], key[2][4:]) in lengths) or \
                (key[0], _ITEM.sub("", str(key[2]))) in lengths:
            # a container's emptiness guard (`not G['history']`: its first item) or a guard
            # on one of its items (`G['counts']['relu']`, a counter the compiled code bumps)
            # beside its length guard in the same function: one finding, the length's
            # (probes26; a global module hook counting calls into a dict)
            folded[key[0]] = folded.get(key[0], 0) + len(groups.pop(key))
    # A function that hit the limit: the limit is the diagnosis of the guard that failed most
    # often there (the last of equals), the frame's other guards stay recompiles of their own.
    per_frame: dict[Any, int] = dict(folded)
    limited: dict[Any, tuple] = {}
    for key, evs in groups.items():
        per_frame[key[0]] = per_frame.get(key[0], 0) + len(evs)
        if key[0] in limits and len(evs) >= len(groups.get(limited.get(key[0]), ())):
            limited[key[0]] = key
    # sizes 0 and 1 at the limit: the range guard's 0/1 is the cause, the 0/1 graphs' static
    # guards its consequences (analyses/zero_one.py)
    followers: dict[tuple, tuple[tuple[str, list[dict[str, Any]]], ...]] = {}
    for frame_no, (cause_key, keys) in zero_one_limits(
            groups, limits, lambda k, e: _after(ctx, k[1], k[2], e[-1])).items():
        limited[frame_no] = cause_key
        followers[cause_key] = tuple((k[2], groups.pop(k)) for k in keys)
    # where torch tied some guard on an object to a line: a guard on the same object that it
    # gave none (`len(batch) != 2`, beside `list(dict.keys(batch))[2]  # x.py:16`) is read there
    lines = {(frame_of(e["compile_id"]), _read_object(e["guarded"] or "")): e
             for e in reversed(ctx.r.recompile_guards(ctx.run_id)) if e["loc_filename"]}
    out = []
    for (frame_no, category, source), evs in groups.items():
        first, last = evs[0], evs[-1]
        count = len(evs)
        before, after = first["before"], _after(ctx, category, source, last)
        extra = followers.get((frame_no, category, source), ())  # 0/1 graphs' guards
        values = [e["before"] for e in evs if e["before"] is not None]
        if last["after"] is not None:
            values.append(last["after"])
        fn = ctx.fn_name(first["compile_id"])
        shown = resumed_function(fn)  # what the words name: the user's function
        # the line most of the group's failures were read at (the first can be another
        # cause's, a size 1's in library code: probes33e iwae_k_sweep, `math.log(k)`)
        read = _usual_read(ctx, evs) or (first if first["loc_filename"] else
                                          lines.get((frame_no, _read_object(source))))
        loc = ({"filename": read["loc_filename"], "lineno": read["loc_lineno"],
                "line": read["loc_line"]} if read else None)
        guard_line = locate(ctx, first["compile_id"], torch=[loc, first["user_stack"] or []],
                            nodes=_library_nodes(ctx, frame_no, loc))
        call, chain = call_site(ctx, first["compile_id"])
        # the size sets a Python loop's trip count, not an `if` (probes32e anchor_grid_loop:
        # `for y in range(feat_h):` unrolled per image size, said as a branch at the call)
        # (or a comprehension: `[f(c) for c in x.split(8)]`, probes44j serve_microbatch_...)
        loop = category == "size_branch" and guard_line.evidence == "torch" and \
            _LOOPS.match(guard_line.line or "") is not None
        # a range guard points at the line that bounded the size (torch's guard location),
        # and so does a guard of the code after a graph break: its "call" is the break, not
        # a line of the user's that passed a value (probes26: the list `history.append` grew
        # at line 18, shown at the logging break at 17)
        # a branch on an expression of a dynamic size or number (`if step % 4:`, `if w %
        # stride == 0:`) is at its `if`, the line torch names and the fix changes (probes42b
        # tf_same_pad_parity_recompile was at the call, the `if` only "read at line 26")
        branch_if = category == "size_branch"
        frame = guard_line if (category == "size_range" or is_resume_function(fn)
                               or category in READ_AT_LINE or loop or branch_if) and \
            guard_line.evidence in ("torch", "fx_node") else call or guard_line
        if (frame is call or frame.evidence == "def") and source.startswith("G[") and \
                category in ("identity", "global"):
            # a global the call does not pass: where the compiled code reads it
            frame = global_read(ctx, first["compile_id"], bare(source)) or frame
        limit = limits.pop(frame_no, None) if limited.get(frame_no) == (frame_no, category,
                                                                        source) else None
        call_text = (call.line or ctx.source_line(call.filename, call.lineno)) \
            if call and call.filename and call.lineno else None
        source, guarded = passed_as(source, call_text), source
        head = REASONS.get("size_loop" if loop else category, "guard {src} failed").format(
            src=keyword_named(guarded, source)) + (
                f", at `{guard_line.line.strip()}`" if (loop or branch_if and frame is
                                                       guard_line) and guard_line.line else "")
        if category == "size_order":  # the user's call that compared them (pad_sequence)
            head += call_clause(frame.line, head)
        change = "" if before is None and after is None else (
            f" ({before if before is not None else '?'} -> "
            f"{after if after is not None else 'another value'})")
        seen = list(dict.fromkeys(map(str, values)))
        if len(seen) > 2:  # every value it took, not the first and last as if one change
            change = f" ({', '.join(seen[:8])}{', ...' if len(seen) > 8 else ''})"
        elif len(values) > 2 and str(before) == str(after):  # there and back, in order
            # (probes32a r1_penalty_gan said "requires_grad=False -> requires_grad=False")
            change = f" ({' -> '.join(map(str, values[:8]))}{' ...' if len(values) > 8 else ''})"
        explanation = recompile_explanation("size_loop" if loop else category, source, shown,
                                            count, first["failed_guard"])
        changing = len(set(values)) >= RECURRING and count >= RECURRING - 1
        guard_text = " ".join(str(x) for x in (first["failed_guard"], first["loc_line"],
                                               guard_line.line) if x)
        also = also_changed(ctx, frame_no, first["compile_id"], source)
        cause = other_cause(ctx, frame_no, first, category, source, fn, also, call)
        # A size that dynamic=True still specialised (torch specialises sizes 0 and 1) and
        # that then recompiled is the problem the user asked dynamic shapes to avoid.
        specialised_01 = (category == "size" and ctx.dynamic_requested(first["compile_id"])
                          and str(before) in ("0", "1"))
        # A recompile torch makes on purpose (ON_PURPOSE): once, not at the limit, no other
        # cause, and the facts its row names hold in the store.
        facts = {"argument": _ARGUMENT.match(source or "") is not None,
                 "automatic_dynamic": ctx.automatic_dynamic(first["compile_id"]),
                 "not_requested": not ctx.dynamic_requested(first["compile_id"]),
                 "made_dynamic": made_dynamic(ctx, first, last["compile_id"], source),
                 "keywords": _KEYWORDS.match(source or "") is not None,
                 "another_call": category == "length" and another_call(ctx, first["compile_id"])}
        flag = bool_flag(before, after, guard_line.line, bare(source)) \
            if category == "value" else None
        said = flag or ("string" if category == "value" and quoted(before, after) else category)
        purpose = None if flag == "cond" else first_step_state(
            ctx, first["compile_id"], source, before) or ON_PURPOSE.get(said)
        expected = (purpose is not None and limit is None and cause is None
                    and (count == 1 or category in MODE_CATEGORIES)
                    and all(facts[n] for n in purpose["needs"]))
        by_design_01 = (category == "size" and limit is None and facts["not_requested"]
                        and zero_one_bounded(values, count, specialised_by_line=cause is not None,
                                             made_dynamic=facts["made_dynamic"]))
        changing = changing and not by_design_01
        tensor, dim = tensor_and_dim(source)
        fix = (purpose["fix"].format(src=source, tensor=tensor, dim=dim) if expected else
               recompile_fix("size_loop" if loop else category, source, count=count,
                             limit=limit is not None, fn=shown,
                             recurring_text=guard_text if changing else None,
                             guard_text=first["failed_guard"], before=before,
                             tied=tied_fix(ctx, first["compile_id"], source, before, after)))
        fix = COND_PRED_FIX.format(src=bare(source)) if flag == "cond" else fix
        layer = layer_number(ctx, read, source, first["compile_id"]) \
            if changing and category == "value" and cause is None else None
        if layer is not None:  # a torch layer's number the program changes (layer_numbers)
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=layer["fix"]) \
                if limit is not None else layer["fix"]
            explanation, frame = explanation + layer["explanation"], layer["frame"] or frame
        if specialised_01 and cause is None:
            explanation += " " + SPECIALISED_01_EXPLANATION.format(value=before)
            fix = SPECIALISED_01_FIX.format(tensor=tensor_and_dim(source)[0],
                                            dim=tensor_and_dim(source)[1])
        said = (in_user_terms(ctx, {**first, **_loc_of(read), "before": before,
                                    "after": after}, category,
                              source, shown) if cause is None else None)
        if said is not None:
            head, change, explanation = said.head, said.change, said.explanation
            frame = said.frame or (guard_line if said.at_guard and guard_line.lineno else frame)
            expected = expected and said.by_design
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=said.fix) \
                if limit is not None else fix if expected and not said.whole_fix else said.fix
        if cause is not None:
            # another instance: at the call that chose the object (recompile_instances)
            frame = cause.frame or ((instance_frame(call, guard_line, [
                call_site(ctx, c)[0] for c in frame_cids(ctx, frame_no)], source) or frame)
                if cause.instances else frame)
            explanation = cause.explanation
            head, change = cause.head or head, change + cause.suffix
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=cause.fix) \
                if limit is not None else cause.fix
            # instances' own graphs for a value that does not keep changing are the design:
            # probes46a vit_droppath_regional_rand_ok (drop_prob 0.0 or not, train and eval)
            expected = expected or bool(cause.instances and limit is None and not changing)
        if by_design_01 and not expected:
            expected, fix = True, ZERO_ONE_FIX
            explanation += " " + ZERO_ONE_EXPLANATION.format(
                ones=" and ".join(sorted({str(v) for v in values} & {"0", "1"})),
                recompiles=plural(count, "recompile"))
        if category == "size_range" and str(after) in ("0", "1") and cause is None:
            head, change = RANGE_01_REASON.format(src=source, span=before, value=after), ""
            explanation = RANGE_01_EXPLANATION
            fix = RANGE_01_FIX.format(tensor=tensor, dim=dim)
        if extra:  # sizes 0 and 1 of several tensors at the limit (analyses/zero_one.py)
            others = dict.fromkeys(passed_as(s, call_text) for s, _ in extra)
            others.pop(source, None)  # the cause's own tensor is "here"
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=ZERO_ONE_LIMIT_FIX.format(
                tensor=tensor, dim=dim, sources=", ".join(others)))
        reason = head + change + ("; also changed: " + ", ".join(also) if also else "")
        score = SPEC.score("recurring_recompile" if changing else "info" if expected else KIND,
                     count)
        torch_message = first["failed_guard"]
        if changing and limit is None and cause is None:
            # each recompile on a value not seen before (calls that reused an entry between
            # them are not counted anywhere, so never "every call": probes31a hetero_edge_types)
            reason += f", {count} recompiles, each on a new value"
            explanation += (f" It failed {count} times with a new value each time: a compile "
                            "for every new value.")
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
            on = (f"{plural(count, 'time')} on {source}" if total == count else
                  f"{plural(total, 'time')}, {count} of them on {source},")
            if extra:  # the 0/1 graphs' guards, on whichever tensor torch checked first
                zero = zero_one_events(evs) if category == "size" else len(evs)
                zero += sum(zero_one_events(e) for _, e in extra)
                count += sum(len(e) for _, e in extra)
                on = f"{plural(total, 'time')}, {zero} of them on sizes 0 and 1" + (
                    "" if category == "size_range" else
                    " (torch specialises each: a graph per combination of them)")
            plain = f" ({said.head}{said.change})" if said is not None else \
                f" ({head})" if category in SAID_IN_LIMIT or loop else \
                f" ({cause.suffix.lstrip(',; ')})" if cause is not None and cause.suffix else ""
            then = "and the limit's error ended the program" if limit.get("ended") else \
                "and now runs in eager"
            reason = (f"recompile limit hit: {shown or 'a function'}() recompiled "
                      f"{on.rstrip(',') if plain else on}{plain} "
                      f"{then}; last guard that failed: "
                      f"{last['failed_guard'].split('  #')[0].strip()[:160]}")
            if limit.get("ended"):  # not "now runs uncompiled": nothing ran after it
                fix = fix.replace(LIMIT_RUNS_ON, LIMIT_ENDED)
            lowered = lowered_limit(ctx, first["compile_id"], total)
            if lowered is not None:  # the program's own setting made the limit this low
                reason += LOWERED_REASON.format(**lowered)
                fix = LOWERED_FIX.format(**lowered) + " " + fix
            explanation = (limit.get("explanation") or "") + " " + explanation
            torch_message = "\n".join(x for x in (limit.get("torch_message"),
                                                   last["failed_guard"]) if x)
        cfg = suspect(ctx, frame.filename, "python float") \
            if category == "value" and _float(after or before) and frame is not None else None
        if cfg is not None:  # the program's own setting made the float a constant
            reason += f", with `{cfg['statement']}` set at line {cfg['frame'].lineno}"
            frame, fix = cfg["frame"], suspect_fix(cfg, fix)
        rebound = rebound_at(ctx, first["compile_id"], bare(source)) \
            if source.startswith("G[") and category in ("identity", "global") else None
        if rebound is not None:  # the program's line that binds the global anew
            explanation += (f" The program binds {bare(source)} anew at line {rebound.lineno} "
                            f"(`{(rebound.line or '').strip()}`).")
        replaced = replaced_at(ctx, first["compile_id"], guarded, shown) \
            if category == "identity" and cause is None else None
        if replaced is not None:  # the program's line that puts a new object there
            frame, (words, new_fix) = replaced[0], replaced[1:]
            explanation += " " + words
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=new_fix) \
                if limit is not None else new_fix
        used = specialised_use(ctx, first["compile_id"], guarded) \
            if frame is call and not expected else None
        if used is not None:  # an op's number argument in the function needs the value
            frame, reason, fix = used["frame"], reason + used["clause"], used["fix"]
        torchs = torch_specialised(ctx, evs, cause and cause.spec) \
            if category in ("size_branch", "size") else None
        if torchs is not None:  # torch's own code made the size a constant: at the op
            frame, reason = torchs.frame or frame, torchs.said_in(reason)
            explanation = f"{(limit or {}).get('explanation') or ''} {torchs.explanation}"
            fix = LIMIT_FIX.format(fn=shown or "The function", fix=torchs.fix) if limit \
                else torchs.fix
        out.append(Diagnosis(
            KIND, stage="dynamo",
            compile_id=first_attempt((limit or {}).get("compile_id") or last["compile_id"]),
            reason=reason, user_frame=frame, explanation=explanation.strip(),
            fix=fix, score=score, count=count, compile_ids=tuple(
                e["compile_id"] for e in (*evs, *(x for _, f in extra for x in f))),
            torch_message=torch_message, severity="info" if expected else "problem",
            details=RecompileDetails(guard=source, category=category, before=before,
                                     after=after, values=tuple(values_seen(evs, after, ctx)[:20])
                                     if len({e["guarded"] for e in evs}) == 1 else (),
                                     function=fn,
                                     failed_guard=first["failed_guard"][:300],
                                     limit_hit=limit is not None,
                                     def_line=ctx.def_frame(first["compile_id"]),
                                     guard_line=guard_line, call_stack=chain,
                                     specialized=_spec_json(cause and cause.spec),
                                     instances=cause and cause.instances,
                                     tied_to=cause.tied if cause else None,
                                     also_changed=also, recurring=bool(changing) or None)))
    for limit in limits.values():
        fn = ctx.user_fn_name(limit.get("compile_id"))
        call, _ = call_site(ctx, limit.get("compile_id"))
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=limit.get("compile_id"),
            reason=f"recompile limit hit: {fn or 'a function'}() "
                   + ("raised, and it ended the program" if limit.get("ended")
                      else "now runs in eager"),
            user_frame=call or locate(ctx, limit.get("compile_id")),
            explanation=limit.get("explanation"),
            fix=recompile_fix("other", "?", count=0, limit=True, fn=fn), score=SPEC.score("limit"),
            torch_message=limit.get("torch_message"),
            details=LimitDetails(limit_hit=True, function=fn)))
    return _fold_into_specialised(out)


def _fold_into_specialised(out: list[Diagnosis]) -> list[Diagnosis]:
    """Once a line specialised a size of a function, its other size recompiles follow from
    it (sizes tied to the constant one: `values` n+1 beside `rewards` n, `dones` n): one
    finding, the specialisation's, which counts them (probes31d gae_rollout_lengths: a second
    panel blamed automatic dynamic shapes and offered mark_dynamic, which left 4 recompiles)."""
    roots = {frame_of(d.compile_id): d for d in out if d.severity == "problem"
             and getattr(d.details, "specialized", None)}
    kept, extra = [], {}
    for d in out:
        root = roots.get(frame_of(d.compile_id))
        if root is not None and d is not root and d.severity == "problem" and \
                getattr(d.details, "category", None) == "size" and \
                not getattr(d.details, "limit_hit", False):
            extra.setdefault(id(root), []).append(d)
            continue
        kept.append(d)
    return [replace(d, count=d.count + sum(e.count for e in extra[id(d)]),
                    compile_ids=d.compile_ids + tuple(c for e in extra[id(d)]
                                                      for c in e.compile_ids),
                    explanation=d.explanation + " The function's other size recompiles ("
                    + ", ".join(sorted({e.details.guard for e in extra[id(d)]}))
                    + ") follow from the same constant and are counted here.")
            if id(d) in extra else d for d in kept]


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
