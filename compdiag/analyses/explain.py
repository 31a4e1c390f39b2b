"""`compdiag explain`: every registered diagnosis kind's diagnoses of one run, duplicates
folded, ranked by one cost model, each pointing at the user's own line with a concrete fix.

The kinds live in analyses/diagnoses/ (one module each) and are found through the plugin
manager (analyses/registry.py); this module only collects, folds and ranks. Folding is one
mechanism: the relations kinds declare (KindSpec.causes, analyses/consequences.py) put each
consequence under its cause, which then ranks at least where the consequence would have."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any

from compdiag.analyses.cached_compiles import carried
from compdiag.analyses.consequences import Causes, Consequence
from compdiag.analyses.context import RunContext
from compdiag.analyses.diagnosis import Diagnosis
from compdiag.analyses.registry import KindFault, call_each, kind_spec, kind_specs, plugin_manager
from compdiag.formats.compiled_code import resumed_function
from compdiag.store.reader import Reader

# A count or a measure standing alone in a reason (×3, 4 graph breaks, a batch of 5 rows,
# 0.002), never a digit inside a name (float16, conv1) or an output's or argument's number.
_COUNT = re.compile(r" ×\d+|(?<![\w.])(?<!output )(?<!args\[)\d+(?:\.\d+)?(?![\w.])")


def _counted(m: re.Match) -> str:
    """A repeat mark (" ×2") goes, as a count of one has none; a number becomes "#"."""
    return "" if m.group(0).startswith(" ×") else "#"


@dataclass(frozen=True)
class Fold:
    """A diagnosis folded into its cause: the cause's kind (`into`), the relation's words
    (`why`) and the cause itself."""

    into: str
    why: str
    cause: Diagnosis


def relations() -> list[Causes]:
    """Every registered kind's declared relations (KindSpec.causes), in tie order."""
    return [c for spec in kind_specs().values() for c in spec.causes]


def causes_of(effects: list[Diagnosis], causes: list[Diagnosis], ctx: Any
              ) -> dict[int, tuple[Diagnosis, Causes]]:
    """id(effect) -> (its cause, the relation), for each of `effects` some relation makes the
    consequence of one of `causes` (tried most important first); a chain is followed to the
    root cause, and a loop is never closed (the first link of it wins)."""
    rels = relations()
    if not rels:
        return {}
    ordered = sorted(causes, key=lambda d: -d.score)
    links: dict[int, tuple[Diagnosis, Causes]] = {}
    for e in effects:
        for c in ordered:
            if c is e or id(c) in links and _root(links, c) is e:
                continue
            rel = next((r for r in rels if r.effect == e.kind and r.cause == c.kind
                        and _holds(r, e, c, ctx)), None)
            if rel is not None:
                links[id(e)] = (c, rel)
                break
    return {k: (_root(links, c), rel) for k, (c, rel) in links.items()}


def _holds(r: Causes, effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    try:
        return bool(r.when(effect, cause, ctx))
    except (AttributeError, KeyError, TypeError):  # a relation about another details type
        return False


def _root(links: dict[int, tuple[Diagnosis, Causes]], d: Diagnosis) -> Diagnosis:
    seen = {id(d)}
    while id(d) in links and id(links[id(d)][0]) not in seen:
        d = links[id(d)][0]
        seen.add(id(d))
    return d


def collect(ctx: RunContext, *, cached: bool = True) -> list[Diagnosis]:
    """Every registered kind's diagnoses (the order between kinds is rank's business), and
    with `cached`, those of the compiles that made the cache entries this run was served
    from (analyses/cached_compiles.py)."""
    hook = plugin_manager().hook.compdiag_diagnose
    found = [d for got in call_each(hook, ctx.faults, ctx=ctx) for d in got or ()]
    if cached:
        def theirs(c: RunContext) -> list[Diagnosis]:
            c.faults = ctx.faults  # a kind that fails on the cached compiles is said too
            return collect(c, cached=False)
        found += carried(ctx, found, theirs)
    return found


def fold(diagnoses: list[Diagnosis], ctx: RunContext) -> list[Diagnosis]:
    return folded(diagnoses, ctx)[0]


def folded(diagnoses: list[Diagnosis], ctx: Any, causes: list[Diagnosis] | None = None
           ) -> tuple[list[Diagnosis], list[tuple[Diagnosis, Fold]]]:
    """(the diagnoses kept, [(a diagnosis folded, its Fold)]): each consequence is folded
    under its cause (`causes`, default the diagnoses themselves), which then carries it
    (Diagnosis.consequences) and ranks at least where it would have ranked. What was folded
    is said, not hidden (explain's header counts must add up)."""
    links = causes_of(diagnoses, diagnoses if causes is None else causes, ctx)
    under: dict[int, list[Consequence]] = {}
    dropped = []
    for d in diagnoses:
        if id(d) in links:
            cause, rel = links[id(d)]
            under.setdefault(id(cause), []).append(Consequence(d, rel.why, rel.same_finding))
            dropped.append((d, Fold(cause.kind, rel.why, cause)))
    lifted: dict[int, Diagnosis] = {}
    for d in [*diagnoses, *(causes or [])]:
        if id(d) in under and id(d) not in links:
            lifted[id(d)] = with_consequences(d, under[id(d)])
    kept = [lifted.get(id(d), d) for d in diagnoses if id(d) not in links]
    return kept, [(d, Fold(f.into, f.why, lifted.get(id(f.cause), f.cause)))
                  for d, f in dropped]


def with_consequences(cause: Diagnosis, more: list[Consequence]) -> Diagnosis:
    """The cause with its consequences under it, scored at least as its costliest one (not
    counting its own finding reported again); when one of them ended the program, the cause
    says so (its details' `fatal`, where its kind has one, and its explanation)."""
    top = max([cause.score, *(c.diagnosis.score for c in more if not c.same_finding)])
    ended = next((c.diagnosis for c in more if getattr(c.diagnosis.details, "fatal", False)),
                 None)
    details, explanation = cause.details, cause.explanation
    if ended is not None and not getattr(details, "fatal", False):
        if "fatal" in {f.name for f in fields(details)}:
            details = replace(details, fatal=True)
        explanation = (f"{explanation or ''} It ended the program: {ended.reason}").strip()
    reason = cause.reason
    limited = [c.diagnosis for c in more if getattr(c.diagnosis.details, "limit_hit", False)]
    if limited and cause.kind != limited[0].kind and "recompile limit" not in reason:
        # what the cause costs most, said where the user reads first (issue 29 §2)
        fns = sorted({f"{resumed_function(c.details.function)}()" for c in limited
                      if getattr(c.details, "function", None)})
        reason += (f"; the code after it then recompiled until the recompile limit "
                   f"({', '.join(fns) or 'the resumed code'} now "
                   f"{'run' if len(fns) > 1 else 'runs'} in eager)")
    return replace(cause, score=top, consequences=cause.consequences + tuple(more),
                   details=details, explanation=explanation, reason=reason)


def rank(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """Problems before information (an information item never ranks above a problem, in
    the JSON either: probes42f listed a missed fusion torch makes on purpose first), then
    highest score first; equal scores by their kinds' tie order (KindSpec.tie), then as
    produced."""
    order = {id(d): i for i, d in enumerate(diagnoses)}
    tie = {k: kind_spec(k).tie for k in {d.kind for d in diagnoses}}
    return sorted(diagnoses, key=lambda d: (d.severity == "info", -d.score, tie[d.kind],
                                            order[id(d)]))


def explain(reader: Reader, run_id: int) -> list[Diagnosis]:
    """All diagnoses of one run, most important first."""
    return explain_folded(reader, run_id)[0]


def explain_folded(reader: Reader, run_id: int
                   ) -> tuple[list[Diagnosis], list[tuple[Diagnosis, Fold]], list[KindFault]]:
    """explain(), the diagnoses folded into others on the way (with the fold's reason), and
    the kinds that raised (their diagnoses missing, the others complete)."""
    ctx = RunContext(reader, run_id)
    kept, dropped = folded(collect(ctx), ctx)
    return rank(kept), dropped, ctx.faults


def explain_job(reader: Reader, job: str, faults: list[KindFault] | None = None
                ) -> list[tuple[Diagnosis, tuple[int, ...]]]:
    """A job's diagnoses with the ranks each concerns, most important first: the job-level
    kinds' (divergence: the ranks that differ), and each rank's own, a diagnosis several ranks
    share listed once with all of them. A kind that raises is added to `faults`."""
    from compdiag.analyses.job_context import JobContext

    faults = [] if faults is None else faults
    jctx = JobContext(reader, job)
    hook = plugin_manager().hook.compdiag_diagnose_job
    found = [d for got in call_each(hook, faults, job=jctx) for d in got or ()]
    ranks_of: dict[int, tuple[int, ...]] = {id(d): d.details.ranks for d in found}
    merged: dict[tuple, Diagnosis] = {}
    # A rank's diagnosis a job-level one caused (a timeout or abort after ranks that issued
    # collectives differently) folds under it, by the same relations as a run's.
    under: dict[int, list[Consequence]] = {}
    for r, ctx in sorted(jctx.ranks.items()):
        ctx.faults = faults
        mine = fold(collect(ctx), ctx)
        links = causes_of(mine, found, ctx)
        for d in mine:
            if id(d) in links:
                cause, rel = links[id(d)]
                under.setdefault(id(cause), []).append(Consequence(d, rel.why, rel.same_finding))
                continue
            # the same finding on several ranks, whatever its counts there (a break hit
            # three times on one rank and four on another): one diagnosis, every rank named
            key = (d.kind, _COUNT.sub(_counted, d.reason), d.user_frame, d.gb_code)
            first = merged.setdefault(key, d)
            ranks = ranks_of.get(id(first), ())
            if r not in ranks:
                ranks = ranks + (r,)
            if d is not first and d.score > first.score:
                merged[key] = d  # the worst rank's words and cost stand for all of them
                first = d
            ranks_of[id(first)] = ranks
    own = _after_a_crash(list(merged.values()), ranks_of, under)
    found = _failed_there(found, own, ranks_of, under)
    lifted_all = []
    for d in found + own:
        lifted = with_consequences(d, under[id(d)]) if id(d) in under else d
        ranks_of[id(lifted)] = ranks_of[id(d)]
        lifted_all.append(lifted)
    everything = rank(lifted_all)
    return [(d, ranks_of[id(d)]) for d in everything]


FAILED_THERE_WHY = ("the guard that failed on these ranks only made them compile again, and "
                    "that compile failed: the failure is what to fix")


def _failed_there(found: list[Diagnosis], own: list[Diagnosis],
                  ranks_of: dict[int, tuple[int, ...]],
                  under: dict[int, list[Consequence]]) -> list[Diagnosis]:
    """A divergence whose compile on the ranks that differ is a failure there folds under the
    failure (probes41e ddp_padded_shard_mask_fullgraph: a guard on `keep` failed on rank 1
    only, and its recompile failed under fullgraph=True; "ranks diverged" ranked first with
    a fix to feed the ranks the same values, which made both fail alike)."""
    kept = []
    for d in found:
        failed = next((f for f in own if f.kind == "failure" and f.compile_id and
                       f.compile_id == d.compile_id and _ended(f) and
                       set(ranks_of.get(id(f), ())) & set(getattr(d.details, "ranks", ()))),
                      None) if d.kind == "divergence" else None
        if failed is None:
            kept.append(d)
            continue
        under.setdefault(id(failed), []).append(Consequence(d, FAILED_THERE_WHY))
    return kept


HANG_AFTER_CRASH_WHY = ("this rank waited at a collective the crashed rank never reached, and "
                        "gave up: the crash is the cause")


def _ended(d: Diagnosis) -> bool:
    """A problem that says how a rank ended: a fatal failure, the program's own ending."""
    return d.severity == "problem" and (
        d.kind == "program" or bool(getattr(d.details, "fatal", False)))


def _after_a_crash(own: list[Diagnosis], ranks_of: dict[int, tuple[int, ...]],
                   under: dict[int, list[Consequence]]) -> list[Diagnosis]:
    """A rank that ended in a collective's timeout or a closed connection after another rank
    crashed on its own error (probes26's rank_label_out_of_range: rank 1's label out of
    bounds, rank 0's "Connection closed by peer ... typically caused by a remote worker
    crashing"): the crash is the cause, the other ranks' ends fold under it (issue 29 §2).
    What remains of the ranks' own diagnoses."""
    from compdiag.analyses.job_context import says_hang, says_teardown

    def hung(d: Diagnosis) -> bool:
        return says_hang(f"{d.reason}\n{d.torch_message or ''}")

    # (a rank the launcher stopped is the teardown, never a cause)
    crashes = sorted((d for d in own if _ended(d) and not hung(d)
                      and not says_teardown(d.reason)), key=lambda d: -d.score)
    if not crashes:
        return own
    cause = crashes[0]
    mine = set(ranks_of.get(id(cause), ()))
    out = []
    for d in own:
        if d is not cause and _ended(d) and hung(d) and not (set(ranks_of.get(id(d), ())) <= mine):
            under.setdefault(id(cause), []).append(Consequence(d, HANG_AFTER_CRASH_WHY))
            continue
        out.append(d)
    return out


def public(d: Diagnosis) -> dict[str, Any]:
    """A diagnosis as it appears in `explain --json`."""
    return d.to_json()
