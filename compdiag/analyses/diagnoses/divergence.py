"""Ranks of one job that compiled differently: the torch.compile failures that hang or stall a
distributed job (one rank graph-breaks or recompiles and its collectives stop matching; one
rank compiles for minutes while the others wait at a collective, pytorch #108971).

A job-level kind (`compdiag_diagnose_job`, analyses/job_context.py): each facet below turns a
rank's store facts into {key: fact}; a key whose value is not the same on every rank is one
diagnosis naming the ranks that differ (those off the most common value; on a tie, the ranks
where something happened) and the user's line. `details.facts` holds every rank's fact.
Cost: the `divergence` band plus the facet's bonus (collectives first: they hang)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar

from compdiag.analyses.consequences import Causes, same_compile
from compdiag.analyses.context import RunContext
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.job_context import (HANG_WORDS, TEARDOWN_SIGNALS, JobContext,
                                           compile_seconds, frame_compile, frame_key,
                                           is_resume)
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.recompile_rules import REASONS
from compdiag.formats.command_line import command_line
from compdiag.formats.compile_id import frame_of
from compdiag.formats.first_nonblank import first_nonblank
from compdiag.formats.guard_source import in_user_spelling
from compdiag.formats.signal_names import signal_name

KIND = "divergence"

# Collectives in a post-grad graph: functional collectives and the c10d ops they lower to.
COLLECTIVE_NAMESPACES = ("_c10d_functional.", "c10d_functional.", "c10d.",
                         "_dtensor.", "symm_mem.")
NOT_COLLECTIVES = ("wait_tensor",)  # the wait pairs with its collective; the collective counts
# Compile-time skew: the slowest rank against the median rank (the lower one of an even count).
SKEW_RATIO = 2.0
SKEW_MIN_S = 5.0
# A native abort inside the communication backend (gloo's EnforceNotMet on a message of
# another size than the collective expected, NCCL's errors): its message names the backend.
BACKEND_WORDS = ("gloo", "nccl", "c10d", "processgroup", "collective")
HANG_EXPLANATION = (" A rank that waits at a collective its partner never issues blocks until "
                    "the process group's timeout, then ends in the backend's error: that "
                    "timeout is the consequence, this divergence the cause.")
_SYMBOL = re.compile(r"\b[su]\d+\b")


@dataclass(frozen=True)
class Fact:
    """One rank's value for one key, what it reads as, and where in the user's code."""

    value: Any
    text: str
    frame: UserFrame = field(default_factory=UserFrame)
    compile_id: str | None = None
    fn: str = "a compiled function"
    in_resume: bool = False
    graph: tuple = ()  # what identifies the compiled graph (its cache keys), when known


@dataclass(frozen=True)
class DivergenceDetails(Details):
    facet: str = ""
    ranks: tuple[int, ...] = ()           # the ranks that differ
    agreeing_ranks: tuple[int, ...] = ()  # the ranks with the most common value
    facts: dict = field(default_factory=dict)    # rank -> what it did (text)
    run_ids: dict = field(default_factory=dict)  # rank -> run id (for `compdiag diff`)
    in_resume: bool = False  # about a resume function (one a graph break made)
    # collective: each rank's collectives in order (side by side), the first position where
    # they part, and the timeout or abort it ended in on the ranks that waited (rank -> line)
    sequences: dict | None = None
    position: int | None = None
    consequence: dict | None = None

    internal: ClassVar[tuple[str, ...]] = ("in_resume",)
    omit_none: ClassVar[tuple[str, ...]] = ("sequences", "position", "consequence")


HUNG_WHY = ("the rank timed out or aborted waiting on a collective the ranks issued "
            "differently: the divergence is the cause")
GUARD_WHY = ("this rank's recompile is the guard that failed on some ranks only: the "
             "divergence reports it")
SPEC = KindSpec(KIND, title="ranks diverged", words=("divergence", "divergences"),
                style="bold magenta", tie=90, costs={"divergence": Cost(720)},
                details=(DivergenceDetails,),
                causes=(*(Causes(KIND, effect, HUNG_WHY, lambda e, c, ctx: _hung(e, c, ctx))
                          for effect in ("failure", "program")),
                        Causes(KIND, "recompile", GUARD_WHY,
                               lambda e, c, ctx: _recompiled_here(e, c, ctx),
                               same_finding=True)))


def _recompiled_here(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """A rank's recompile diagnosis of the compile a guard divergence names on that rank:
    the same finding, seen from one rank."""
    rank = (ctx.run or {}).get("rank")
    guard = str(getattr(effect.details, "failed_guard", "") or "")
    return (cause.details.facet == "guard" and rank in cause.details.ranks
            and same_compile(effect, cause)
            # the same guard: another guard of that compile is a finding of its own
            and (not guard or any(guard in str(t) or effect.reason.split(";")[0] in str(t)
                                  for t in (cause.details.facts or {}).values())))


def _hung(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """A rank's failure or exception that is the timeout or abort a collective divergence
    ended in on that rank (the divergence's details.consequence: rank -> torch's line)."""
    rank = str((ctx.run or {}).get("rank"))
    line = (cause.details.consequence or {}).get(rank)
    return bool(line) and (line in effect.reason or line in (effect.torch_message or ""))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


@dataclass(frozen=True)
class Facet:
    name: str
    title: str        # format fields: the first differing rank's fact's `label`
    empty: Any        # a rank without the key has this value
    nothing: str      # ... and this text
    bonus: float
    explanation: str
    fix: str
    facts: Callable[[RunContext], dict[Any, Fact]]


def _frame_of(ctx: RunContext, cid: str | None) -> UserFrame:
    return locate(ctx, cid)


def _fn(key: tuple | None) -> str:
    return f"{key[1]}()" if key else "a compiled function"


def _graph_breaks(ctx: RunContext) -> dict[Any, Fact]:
    out: dict[Any, list] = {}
    for g in ctx.r.graph_breaks(ctx.run_id):
        frame = locate(ctx, g.get("compile_id"), torch=[
            g.get("user_stack") or [], {"filename": g.get("filename"),
                                        "lineno": g.get("lineno"), "line": g.get("line")}])
        # a break of one kind in one function, wherever in it: in a pipeline each rank breaks
        # at its own stage's op (rank 0's `dist.send`, rank 1's `dist.recv`, probes40d
        # pp_stage_send_recv), which is not "rank 1: no graph break"
        fn = frame_key(ctx.code_row(g.get("compile_id")))
        key = (fn, g.get("gb_type") or g.get("reason")) if fn is not None else \
            (frame.filename, frame.lineno, g.get("gb_type") or g.get("reason"))
        out.setdefault(key, [frame, g, 0])[2] += 1
    # The break's presence is the fact: a rank that hits the same break more often traced
    # that code more often (a recompile on that rank, which the guard and compile facets
    # report as the cause), not a break the other ranks lack.
    return {k: Fact(1, f"graph break ×{n}: {g.get('gb_type') or g['reason']}"
                    + (f" at line {f.lineno}" if f.lineno else ""), f, g.get("compile_id"))
            for k, (f, g, n) in out.items()}


def _guard_words(e: dict[str, Any]) -> str:
    """A failed guard as the rank's recompile diagnosis says it, in the user's spelling
    ("size x.shape[0] changed (3 -> 2)", probes26's rank_uneven_shard_recompile, which read
    torch's "tensor 'x' size mismatch at index 0. expected 3, actual 2"); torch's own guard,
    without the code comment it appends ("  # return x + ...  # f.py:24"), where no words
    fit."""
    head = REASONS.get(e.get("category") or "")
    if head and e.get("guarded"):
        change = (f" ({e['before']} -> {e['after']})"
                  if e.get("before") is not None and e.get("after") is not None else "")
        return head.format(src=in_user_spelling(e["guarded"])) + change
    return re.split(r"\s{2,}#", e["failed_guard"])[0].strip() or e["failed_guard"]


def _guards(ctx: RunContext) -> dict[Any, Fact]:
    out: dict[Any, Fact] = {}
    seen: Counter = Counter()
    for e in ctx.r.recompile_guards(ctx.run_id):
        key = (frame_key(ctx.code_row(e["compile_id"])), e.get("guarded") or e["failed_guard"])
        if (key, frame_compile(e["compile_id"])) in seen:
            continue  # the same failure, from both of torch's records of it
        seen[(key, frame_compile(e["compile_id"]))] += 1
        n = sum(1 for (k, _) in seen if k == key)
        where = {"filename": e.get("loc_filename"), "lineno": e.get("loc_lineno"),
                 "line": e.get("loc_line")}
        frame = locate(ctx, e["compile_id"], torch=[where, e.get("user_stack") or []])
        out[key] = Fact(n, f"guard failed ×{n}: {_guard_words(e)}", frame, e["compile_id"],
                        _fn(key[0]), is_resume(key[0]))
    return out


def _compiles(ctx: RunContext) -> dict[Any, Fact]:
    per: dict[Any, dict[str, Any]] = {}
    for c in ctx.compiles.values():
        if frame_compile(c["compile_id"]) is None:
            continue
        key = frame_key(ctx.code_row(c["compile_id"]))
        if key is None or is_resume(key):
            continue  # a resume function exists because of a break: the break reports it
        row = per.setdefault(key, {"compiles": set(), "graphs": 0, "cid": c["compile_id"]})
        row["compiles"].add(frame_compile(c["compile_id"]))
        row["graphs"] += c.get("status") == "ok"
    return {k: Fact((len(v["compiles"]), v["graphs"]),
                    f"{len(v['compiles'])} compiles, {v['graphs']} graphs",
                    _frame_of(ctx, v["cid"]), v["cid"], _fn(k)) for k, v in per.items()}


# Collectives each rank may call with its own sizes: all_to_all with split sizes (each rank
# sends and receives what the splits say), and the point-to-point and scatter/gather ops.
PER_RANK_SIZES = ("all_to_all_single", "all_to_all", "send", "recv", "isend", "irecv")
_DTYPE = re.compile(r"^[a-z]+\d*")


def _collectives(ctx: RunContext) -> dict[Any, Fact]:
    """The job's collectives as each rank's compiled graphs issue them, in compile order."""
    seq: list[tuple[str, str]] = []
    where: list[str] = []
    frames: list[Any] = []
    # The user line of each: capture's record of the Dynamo graph (collective_nodes, in graph
    # order) where it has one; the post-grad node's line is torch's own funcol file.
    issued: dict[str, list[dict[str, Any]]] = {}
    for c in ctx.r.collective_nodes(ctx.run_id):
        issued.setdefault(c["compile_id"], []).append(c)
    for cid in ctx.compiles:
        k = 0
        for n in ctx.r.graph_nodes(ctx.run_id, cid):
            target = n.get("target") or ""
            if not target.startswith(COLLECTIVE_NAMESPACES) or n.get("op") in NOT_COLLECTIVES:
                continue
            op = target.split(".")[1]
            meta = _SYMBOL.sub("s*", n.get("meta") or "?")
            # a collective whose sizes are per rank by design compares by its dtype alone
            # (probes41e moe_a2a_split_sizes_tolist: uneven all_to_all_single splits were
            # "ranks diverged", with a fix to pad them)
            seq.append((op, _DTYPE.match(meta).group(0) if op in PER_RANK_SIZES and
                        _DTYPE.match(meta) else meta))
            where.append(cid)
            mine = issued.get(cid) or []
            frames.append(locate(ctx, cid, nodes=[mine[k]]) if k < len(mine) and
                          mine[k].get("filename") else _frame_of(ctx, cid))
            k += 1
    if not seq:
        return {}
    return {("at", i): Fact(item, f"{item[0]} {item[1]} (collective #{i + 1}, compile "
                                  f"{where[i]})", frames[i], where[i],
                            _fn(frame_key(ctx.code_row(where[i]))))
            for i, item in enumerate(seq)}


def _caches(ctx: RunContext) -> dict[Any, Fact]:
    per: dict[Any, dict[str, Any]] = {}
    for e in ctx.r.cache_events(ctx.run_id):
        row = ctx.compiles.get(e.get("compile_id") or "")
        key = frame_key(ctx.code_row(e.get("compile_id")))
        if row is None or key is None:
            continue
        slot = per.setdefault((key, row.get("frame_compile")),
                              {"cid": e["compile_id"], "results": {}, "keys": {}})
        slot["results"][e["cache"]] = "hit" if e.get("hit") else "miss"
        if e.get("key"):
            slot["keys"][e["cache"]] = e["key"]
    return {k: Fact(tuple(sorted(v["results"].items())),
                    ", ".join(f"{c} {r}" for c, r in sorted(v["results"].items())),
                    _frame_of(ctx, v["cid"]), v["cid"], _fn(k[0]),
                    graph=tuple(sorted(v["keys"].items()))) for k, v in per.items()}


FACETS: tuple[Facet, ...] = (
    Facet("collective", "the compiled graphs issue different collectives", (),
          "no collective there", 40,
          "Collectives inside compiled graphs must be issued in the same order, count and shape "
          "on every rank; a rank whose graph issues a different one waits for a partner that "
          "never comes (an NCCL hang or timeout).",
          "Make the compiled region take the same path on every rank: no rank-dependent "
          "branches or prints inside it (compute rank-specific values outside), and mark "
          "dynamic dimensions the same way on all ranks.", _collectives),
    Facet("graph_break", "a graph break on some ranks only", 0, "no graph break", 30,
          "A rank that graph-breaks runs the rest of the function in another graph (and its "
          "collectives with it), so its graphs and timing no longer match the other ranks'.",
          "Take rank-dependent code (prints, logging, `if rank == 0`) out of the compiled "
          "function and call it in the eager code around it, so every rank traces the same "
          "graph (skipping it under torch.compiler.is_compiling() would skip its work too).",
          _graph_breaks),
    Facet("guard", "a guard fails on some ranks only", 0, "no such guard failure", 20,
          "A guard that fails on some ranks recompiles only there: those ranks stall in the "
          "compiler while the others wait at the next collective.",
          "Feed every rank inputs of the same shapes, dtypes and Python values (pad the last "
          "batch, keep rank ids out of the compiled function), or mark the dimension dynamic "
          "(torch._dynamo.mark_dynamic) on all ranks.", _guards),
    Facet("compiles", "{fn} compiles differently across ranks", (0, 0), "not compiled", 10,
          "The ranks compiled this function a different number of times (or into a different "
          "number of graphs): recompiles or breaks happened on some ranks only.",
          "Compare two ranks' runs (compdiag diff) and make their inputs and code paths the "
          "same.", _compiles),
    Facet("cache", "compile {cid} of {fn} hit the compile caches differently", (),
          "no cache lookup", -40,
          "One rank recompiled from scratch what another loaded from the cache: its compile "
          "takes longer and the others wait for it.",
          "Share one Inductor cache between ranks (TORCHINDUCTOR_CACHE_DIR on a shared disk, or "
          "a remote cache) and warm it before the job, so every rank hits.", _caches),
)

# Every rank issues the same collective, some with other shapes (an uneven last batch per
# rank gathered as it is): the path is the same, the sizes are not.
COLLECTIVE_SHAPE_FIX = ("Give the collective the same shape on every rank: pad each rank's "
                        "tensor to the largest size (all-gather the sizes first if they are "
                        "not known, and drop the padding after), or drop_last / a sampler that "
                        "gives every rank equal batches; a rank whose tensor has another shape "
                        "deadlocks, aborts or reads garbage at the collective.")

SKEW_EXPLANATION = ("The other ranks wait at their first collective while the slowest rank "
                    "compiles (pytorch #108971): a collective timeout, or an idle job.")
SKEW_FIX = ("Warm the compile cache for every rank (a shared TORCHINDUCTOR_CACHE_DIR or a "
            "remote cache), give the slow rank the same inputs as the others, or raise the "
            "process group's timeout while compiling.")


def _ranks_word(ranks: list[int] | tuple[int, ...]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def _split(values: dict[int, Any], empty: Any) -> tuple[list[int], list[int]]:
    """(the ranks that differ, the ranks that agree): off the most common value; on a tie,
    the value of nothing happening agrees, else the lowest rank's."""
    counts = Counter(values.values())
    top = max(counts.values())
    tied = [v for v, n in counts.items() if n == top]
    base = empty if empty in tied else values[min(r for r, v in values.items() if v in tied)]
    agree = sorted(r for r, v in values.items() if v == base)
    return sorted(r for r in values if r not in agree), agree


def _diagnose_facet(job: JobContext, facet: Facet,
                    facts: dict[int, dict[Any, Fact]]) -> list[Diagnosis]:
    out = []
    keys = list(dict.fromkeys(k for rank in sorted(facts) for k in facts[rank]))
    if facet.name == "collective":
        keys = _first_collective_difference(facts, keys)
    if facet.name == "guard":
        keys = _guards_of_some_ranks_first(facts, keys)
    for key in keys:
        values = {rank: (facts[rank][key].value if key in facts[rank] else facet.empty)
                  for rank in facts}
        if len(set(values.values())) < 2:
            continue
        if facet.name == "cache" and not all(key in facts[r] for r in facts):
            # a compile some ranks never made looked nothing up there: the recompile or
            # break that made it is the divergence (set20's uneven last batch), not the cache
            continue
        graphs = {facts[r][key].graph for r in facts if key in facts[r]} - {()}
        if len(graphs) > 1:
            continue  # the ranks compiled different graphs here: another facet says why
        differ, agree = _split(values, facet.empty)
        first = next((facts[r][key] for r in differ if key in facts[r]), None) or \
            next(facts[r][key] for r in agree if key in facts[r])
        texts = {str(r): (facts[r][key].text if key in facts[r] else facet.nothing)
                 for r in sorted(facts)}
        groups: dict[str, list[int]] = {}
        for r in differ + agree:
            groups.setdefault(texts[str(r)], []).append(r)
        title = facet.title.format(fn=first.fn, cid=first.compile_id)
        reason = f"{title}: " + "; ".join(f"{_ranks_word(rs)}: {t}" for t, rs in groups.items())
        run_ids = {str(r): job.ranks[r].run_id for r in sorted(facts)}
        fix = facet.fix
        if facet.name == "collective" and facet.empty not in values.values() and \
                len({v[0] for v in values.values()}) == 1:
            fix = COLLECTIVE_SHAPE_FIX  # one collective, of other shapes on some ranks
        out.append(Diagnosis(
            kind=KIND, stage=None, compile_id=first.compile_id, reason=reason,
            user_frame=first.frame, explanation=facet.explanation,
            fix=fix + _diff_hint(job, differ, agree),
            score=SPEC.score(KIND) + facet.bonus,
            details=DivergenceDetails(facet=facet.name, ranks=tuple(differ),
                                      agreeing_ranks=tuple(agree), facts=texts,
                                      run_ids=run_ids, in_resume=first.in_resume)))
    return out


def _guards_of_some_ranks_first(facts: dict[int, dict[Any, Fact]], keys: list) -> list:
    """A function's guards that fail on some ranks only, without its guards that fail on
    every rank a different number of times: a recompile lists one failed guard per cache
    entry, so each extra recompile a rank-only guard causes lists the others again (an FSDP
    module's requires_grad entry, failed once on every rank, is listed again at each of one
    rank's recompiles on a Python float). Those counts are its consequence."""
    def everywhere(key: Any) -> bool:
        return all(key in f for f in facts.values())

    def differs(key: Any) -> bool:
        return len({f[key].value if key in f else 0 for f in facts.values()}) > 1

    only_some = {k[0] for k in keys if not everywhere(k) and differs(k)}
    return [k for k in keys if not (everywhere(k) and k[0] in only_some)]


def _first_collective_difference(facts: dict[int, dict[Any, Fact]], keys: list) -> list:
    """Only the first position where the ranks' collective sequences part: what follows is
    its consequence (a rank with fewer collectives parts where its sequence ends)."""
    positions = sorted(k[1] for k in keys if isinstance(k, tuple) and k[0] == "at")
    for i in positions:
        vals = {r: (f[("at", i)].value if ("at", i) in f else ()) for r, f in facts.items()}
        if len(set(vals.values())) > 1:
            return [("at", i)]
    return []


def _diff_hint(job: JobContext, differ: list[int], agree: list[int]) -> str:
    if not differ or not agree:
        return ""
    a, b = job.ranks[agree[0]].run_id, job.ranks[differ[0]].run_id
    diff = command_line("diff", a, b, store=job.ranks[agree[0]].store)
    return f" Compare the two ranks: `{diff}`."


def _skew(job: JobContext) -> list[Diagnosis]:
    totals: dict[int, float] = {}
    slowest_cid: dict[int, str | None] = {}
    for rank, ctx in job.ranks.items():
        totals[rank] = compile_seconds(ctx.compiles.values())
        times = [(float((c.get("stage_times") or {}).get("total") or 0), cid)
                 for cid, c in ctx.compiles.items()]
        slowest_cid[rank] = max(times)[1] if times else None
    if len(totals) < 2:
        return []
    median = statistics.median_low(totals.values())
    slow = max(totals, key=lambda r: totals[r])
    if totals[slow] - median < SKEW_MIN_S or totals[slow] < SKEW_RATIO * max(median, 1e-9):
        return []
    differ = sorted(r for r, t in totals.items()
                    if t - median >= SKEW_MIN_S and t >= SKEW_RATIO * max(median, 1e-9))
    agree = sorted(r for r in totals if r not in differ)
    ctx = job.ranks[slow]
    cid = slowest_cid[slow]
    ratio = totals[slow] / median if median else float("inf")
    reason = (f"{_ranks_word(differ)} spent {totals[slow]:.1f} s compiling, "
              f"{ratio:.1f}× the median rank's {median:.1f} s")
    facts = {str(r): f"{totals[r]:.1f} s compiling" for r in sorted(totals)}
    return [Diagnosis(
        kind=KIND, stage=None, compile_id=cid, reason=reason, user_frame=locate(ctx, cid),
        explanation=SKEW_EXPLANATION, fix=SKEW_FIX + _diff_hint(job, differ, agree),
        score=SPEC.score(KIND) + min(30.0, ratio),
        details=DivergenceDetails(facet="compile_time", ranks=tuple(differ),
                                  agreeing_ranks=tuple(agree), facts=facts,
                                  run_ids={str(r): job.ranks[r].run_id for r in sorted(totals)}))]


@hookimpl
def compdiag_diagnose_job(job: JobContext) -> list[Diagnosis]:
    if len(job.ranks) < 2:
        return []
    out: list[Diagnosis] = []
    for facet in FACETS:
        facts = {rank: facet.facts(ctx) for rank, ctx in sorted(job.ranks.items())}
        out.extend(_diagnose_facet(job, facet, facts))
    out.extend(_skew(job))
    return _with_hang(job, _fold([_with_sequences(job, d) if d.details.facet == "collective"
                                  else d for d in out]))


def hang_line(ctx: RunContext) -> str | None:
    """The first line of the exception that ended this rank, when it is a collective's
    timeout or abort (the last program exception, else a runtime failure)."""
    texts = [f"{e['exc_type']}: {e['message']}" for e in reversed(ctx.program_exceptions)]
    texts += [f"{f.get('exc_type')}: {f.get('message')}" for f in ctx.failures
              if f.get("stage") == "runtime"]
    for text in texts:
        first = first_nonblank(text)
        if any(w in text.lower() for w in HANG_WORDS):
            return first[:300]
    for end in ctx.r.program_ends(ctx.run_id):
        text = end.get("native_message") or ""
        first = first_nonblank(text)
        if first and any(w in text.lower() for w in HANG_WORDS + BACKEND_WORDS):
            return first[:300]
    return None


def teardown_line(ctx: RunContext) -> str | None:
    """'killed by SIGTERM' when a launcher's stop signal ended this rank (the program kind's
    words for it): the job's teardown once another rank had failed."""
    return next((f"killed by {signal_name(e['signal'])}"
                 for e in ctx.r.program_ends(ctx.run_id)
                 if e.get("how") == "signal" and signal_name(e.get("signal")) in TEARDOWN_SIGNALS), None)


def _with_sequences(job: JobContext, d: Diagnosis) -> Diagnosis:
    """A collective divergence with every rank's sequence side by side and the position where
    they part."""
    seqs = {str(r): [f.text.split(" (collective #")[0] for _, f in
                     sorted(_collectives(ctx).items(), key=lambda kv: kv[0][1])]
            for r, ctx in sorted(job.ranks.items())}
    m = re.search(r"collective #(\d+)", d.reason)
    return replace(d, details=replace(d.details, sequences=seqs,
                                      position=int(m.group(1)) if m else None))


# Which divergence a rank's timeout or abort is the consequence of, when several were found:
# the ranks issued different collectives; else one graph-broke, recompiled, compiled a
# different number of graphs or compiled for much longer than the others, each of which
# makes its ranks reach the next collective at another time or with other work.
HANG_CAUSES = ("collective", "graph_break", "guard", "compiles", "compile_time")


def _with_hang(job: JobContext, found: list[Diagnosis]) -> list[Diagnosis]:
    """When a rank ended in a collective's timeout or abort, the first divergence by
    HANG_CAUSES takes that end as its consequence (one diagnosis, ranked with the crash it
    caused; the ranks the launcher then stopped listed with it)."""
    hung = {str(r): line for r, ctx in sorted(job.ranks.items())
            if (line := hang_line(ctx)) is not None}
    causes = [d for d in found if d.details.facet in HANG_CAUSES]
    if not hung or not causes:
        return found
    hung.update({str(r): line for r, ctx in sorted(job.ranks.items())
                 if str(r) not in hung and (line := teardown_line(ctx)) is not None})
    cause = min(causes, key=lambda d: HANG_CAUSES.index(d.details.facet))
    ended = "; ".join(f"rank {r}: {line}" for r, line in hung.items())
    took = replace(cause, details=replace(cause.details, consequence=hung),
                   reason=f"{cause.reason}; then {ended}",
                   explanation=(cause.explanation or "") + HANG_EXPLANATION,
                   score=SPEC.score("crash") + 40)
    return [took if d is cause else d for d in found]


def _fold(found: list[Diagnosis]) -> list[Diagnosis]:
    """A graph break on some ranks explains their different cache results and compile counts
    for the same function, and the guards of the resume function it made: those are its
    consequences, not more divergences."""
    broken = {(d.user_frame.filename, r) for d in found if d.details.facet == "graph_break"
              for r in d.details.ranks}
    broken_cids = {frame_of(d.compile_id) for d in found
                   if d.details.facet == "graph_break"}
    if broken:
        found = [d for d in found if not (d.details.facet == "guard" and d.details.in_resume)]
    # a guard that failed on some ranks recompiled that function there: its compile count
    # (whichever side of a two-rank tie the compile count names)
    guarded = {frame_of(d.compile_id) for d in found if d.details.facet == "guard"}
    return [d for d in found if not (
        d.details.facet in ("cache", "compiles")
        and (frame_of(d.compile_id) in broken_cids
             or any((d.user_frame.filename, r) in broken for r in d.details.ranks)))
        and not (d.details.facet == "compiles" and frame_of(d.compile_id) in guarded)]
