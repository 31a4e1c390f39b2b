"""`compdiag explain`: every registered diagnosis kind's diagnoses of one run, duplicates
folded, ranked by one cost model, each pointing at the user's own line with a concrete fix.

The kinds live in analyses/diagnoses/ (one module each) and are found through the plugin
manager (analyses/registry.py); this module only collects, folds and ranks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from compdiag.analyses.context import RunContext
from compdiag.analyses.diagnoses.program import ProgramDetails
from compdiag.analyses.diagnosis import Diagnosis
from compdiag.analyses.registry import kind_spec, plugin_manager
from compdiag.formats.compile_id import first_attempt
from compdiag.store.reader import Reader


@dataclass(frozen=True)
class Fold:
    """A diagnosis of kind `drop` that repeats what the `into` kind already reports, when
    `when(diagnosis, the into kind's diagnoses, ctx)` holds."""

    drop: str
    into: str
    why: str
    when: Callable[[Diagnosis, list[Diagnosis], RunContext], bool]


def _shares_compile(d: Diagnosis, others: list[Diagnosis]) -> bool:
    cids = {c for o in others for c in o.compile_ids}
    cids |= {first_attempt(c) for c in cids}
    cid = d.compile_id
    return cid in cids or first_attempt(cid) in cids


def _shares_facet(d: Diagnosis, into: list[Diagnosis], *facets: str) -> bool:
    """d shares a compile with a ddp diagnosis of one of `facets` (ddp.py's DdpDetails)."""
    return _shares_compile(d, [o for o in into if o.details.facet in facets])


def _from_program_exception(d: Diagnosis) -> bool:
    return isinstance(d.details, ProgramDetails)


FOLDS: tuple[Fold, ...] = (
    Fold("failure", "failure", "the program's exception is the same error, reported where "
         "torch.compile raised it",
         lambda d, into, ctx: _from_program_exception(d) and any(
             not _from_program_exception(o) and getattr(o.details, "fatal", False)
             for o in into)),
    Fold("failure", "accuracy", "the accuracy diagnosis reports it, with the measured errors",
         lambda d, into, ctx: d.stage == "accuracy" and ctx.has_accuracy_rows),
    Fold("graph_break", "ddp", "a break inside DistributedDataParallel's own forward: the "
         "ddp diagnosis of torch.compile(DDP(...)) reports it",
         lambda d, into, ctx: _shares_facet(d, into, "wrapper")),
    Fold("graph_break", "ddp", "a break at FSDP2's hooks: the ddp diagnosis of the "
         "fully_shard'ed calls reports it",
         lambda d, into, ctx: _shares_facet(d, into, "fsdp_hooks")),
    Fold("failure", "ddp", "a compile failure inside DDPOptimizer's split: the ddp diagnosis "
         "reports it with the piece and the bisecting step",
         lambda d, into, ctx: _shares_facet(d, into, "split_failure")),
    Fold("cache", "ddp", "DDPOptimizer's pieces are compiled with fakify_first_call, which "
         "the AOTAutograd cache refuses: the ddp diagnosis of the split reports it",
         lambda d, into, ctx: "fakify_first_call" in d.reason and _shares_facet(
             d, into, "split", "split_failure")),
    Fold("failure", "graph_break", "Dynamo skipped the frame after a graph break, and the "
         "run went on: the break reports it",
         lambda d, into, ctx: (d.details.exc_type == "Unsupported"
                               and ctx.torch_skipped(d.compile_id)
                               and _shares_compile(d, into))),
)


def collect(ctx: RunContext) -> list[Diagnosis]:
    """Every registered kind's diagnoses (the order between kinds is rank's business)."""
    return [d for found in plugin_manager().hook.compdiag_diagnose(ctx=ctx) for d in found or ()]


def fold(diagnoses: list[Diagnosis], ctx: RunContext) -> list[Diagnosis]:
    return folded(diagnoses, ctx)[0]


def folded(diagnoses: list[Diagnosis], ctx: RunContext
           ) -> tuple[list[Diagnosis], list[tuple[Diagnosis, Fold]]]:
    """(the diagnoses kept, [(a diagnosis dropped, the fold that dropped it)]): what was
    folded is said, not hidden (explain's header counts must add up)."""
    by_kind: dict[str, list[Diagnosis]] = {}
    for d in diagnoses:
        by_kind.setdefault(d.kind, []).append(d)
    kept, dropped = [], []
    for d in diagnoses:
        why = next((f for f in FOLDS
                    if f.drop == d.kind and f.when(d, by_kind.get(f.into, []), ctx)), None)
        if why is None:
            kept.append(d)
        else:
            dropped.append((d, why))
    return kept, dropped


def rank(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """Highest score first; equal scores by their kinds' tie order (KindSpec.tie), then as
    produced."""
    order = {id(d): i for i, d in enumerate(diagnoses)}
    tie = {k: kind_spec(k).tie for k in {d.kind for d in diagnoses}}
    return sorted(diagnoses, key=lambda d: (-d.score, tie[d.kind], order[id(d)]))


def explain(reader: Reader, run_id: int) -> list[Diagnosis]:
    """All diagnoses of one run, most important first."""
    return explain_folded(reader, run_id)[0]


def explain_folded(reader: Reader, run_id: int
                   ) -> tuple[list[Diagnosis], list[tuple[Diagnosis, Fold]]]:
    """explain(), and the diagnoses folded into others on the way (with the fold's reason)."""
    ctx = RunContext(reader, run_id)
    kept, dropped = folded(collect(ctx), ctx)
    return rank(kept), dropped


def explain_job(reader: Reader, job: str) -> list[tuple[Diagnosis, tuple[int, ...]]]:
    """A job's diagnoses with the ranks each concerns, most important first: the job-level
    kinds' (divergence: the ranks that differ), and each rank's own, a diagnosis several ranks
    share listed once with all of them."""
    from compdiag.analyses.job_context import JobContext

    jctx = JobContext(reader, job)
    found = [d for got in plugin_manager().hook.compdiag_diagnose_job(job=jctx) for d in got or ()]
    ranks_of: dict[int, tuple[int, ...]] = {id(d): d.details.ranks for d in found}
    merged: dict[tuple, Diagnosis] = {}
    # A rank's timeout or abort that a collective divergence caused: that diagnosis says it.
    caused = {(int(r), line) for d in found
              for r, line in (getattr(d.details, "consequence", None) or {}).items()}
    for r, ctx in sorted(jctx.ranks.items()):
        for d in fold(collect(ctx), ctx):
            if d.kind in ("failure", "program") and any(
                    rank == r and (line in d.reason or line in (d.torch_message or ""))
                    for rank, line in caused):
                continue
            key = (d.kind, d.reason, d.user_frame, d.gb_code)
            first = merged.setdefault(key, d)
            if r not in ranks_of.get(id(first), ()):
                ranks_of[id(first)] = ranks_of.get(id(first), ()) + (r,)
    everything = rank(found + list(merged.values()))
    return [(d, ranks_of[id(d)]) for d in everything]


def public(d: Diagnosis) -> dict[str, Any]:
    """A diagnosis as it appears in `explain --json`."""
    return d.to_json()
