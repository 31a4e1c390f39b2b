"""A compile served from the FX graph cache keeps the facts of the compile that made the entry
(issue 29: explain says the same thing on a warm run as on the cold one).

On a hit Inductor replays no lowering and no scheduling: the run has the cached post-grad
graph and output code, but no perf hints (an eager-fallback kernel), no fusion decisions. So
a diagnosis of those facts would vanish from every warm run. The compile that made the entry
is the lookup of the same key that missed; where the store holds it (an earlier run, or
earlier in this run), its lowering-time diagnoses are this compile's too, marked as coming
from it (`Diagnosis.from_cache`). Where the store never saw the entry made, the cache kind
says, in one information line, that the run was served from cache and which facts are
missing (`served_from_cache`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from compdiag.analyses.diagnosis import Diagnosis
from compdiag.formats.compile_id import generation

CACHE = "fx_graph"
# What only Inductor's lowering and scheduling of a graph produce (a hit replays neither):
# the kinds and stages of the diagnoses read from them.
LOWERING_KINDS = ("perf", "fusion")
LOWERING_STAGES = ("inductor_lowering", "inductor_scheduling", "inductor")


def served_from_cache(ctx: Any) -> list[dict[str, Any]]:
    """This run's FX graph cache hits, each {compile_id, key, origin}: `origin` the lookup
    that made the entry ({run_id, compile_id, id}: Reader.cache_entry_origin), or None."""
    out = []
    for e in ctx.r.cache_events(ctx.run_id):
        if e.get("cache") != CACHE or e.get("result") != "hit" or not e.get("key"):
            continue
        origin = ctx.r.cache_entry_origin(ctx.run_id, CACHE, e["key"], e["id"])
        out.append({"compile_id": e.get("compile_id"), "key": e["key"], "origin": origin})
    return out


def hits_across_reset(ctx: Any) -> dict[int, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """generation -> [(hit, origin)]: each cache hit of a compile after a torch._dynamo.reset()
    served from an entry a compile before that reset stored in this very process (issue 29 §5:
    the reset did not compile fresh; the cache kind's information, and a failed check's cause
    where what changed is not in the key)."""
    groups: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for e in ctx.r.cache_events(ctx.run_id):
        gen = generation(e.get("compile_id"))
        if e.get("result") != "hit" or not e.get("key") or not gen:
            continue
        origin = ctx.r.cache_entry_origin(ctx.run_id, e["cache"], e["key"], e["id"])
        if origin and origin["run_id"] == ctx.run_id and \
                generation(origin.get("compile_id")) < gen:
            groups.setdefault(gen, []).append((e, origin))
    return groups


def carried(ctx: Any, found: list[Diagnosis],
            collect: Callable[[Any], list[Diagnosis]]) -> list[Diagnosis]:
    """The lowering-time diagnoses of the compiles that made this run's cache entries, as
    diagnoses of the compiles served from them (`collect(ctx)`: one run's diagnoses); none
    this run already has (the same kind and reason for that compile)."""
    from compdiag.analyses.context import RunContext

    have = {(d.kind, d.reason, c) for d in found for c in d.compile_ids}
    by_run: dict[int, list[Diagnosis]] = {}
    out = []
    for hit in served_from_cache(ctx):
        origin, cid = hit["origin"], hit["compile_id"]
        if origin is None or cid is None:
            continue
        run = origin["run_id"]
        if run not in by_run:
            by_run[run] = found if run == ctx.run_id else collect(RunContext(ctx.r, run))
        for d in by_run[run]:
            if origin["compile_id"] not in d.compile_ids or d.kind not in LOWERING_KINDS \
                    or d.stage not in LOWERING_STAGES or (d.kind, d.reason, cid) in have:
                continue
            have.add((d.kind, d.reason, cid))
            out.append(replace(d, compile_id=cid, compile_ids=(cid,),
                               user_frame=_relocated(ctx, cid, d, origin), from_cache={
                                   "run": run, "compile_id": origin["compile_id"],
                                   "cache": CACHE, "key": hit["key"]}))
    return out


def _relocated(ctx: Any, cid: str, d: Diagnosis, origin: dict[str, Any]) -> Any:
    """The carried diagnosis' line in this run: its op's nodes in the cached post-grad graph
    this run has (at their user frames); else the origin's line when the origin compiled the
    same function (a line it named, e.g. a refused fusion's), else this compile's own."""
    from compdiag.analyses.context import RunContext
    from compdiag.analyses.locate import FX_NODE, locate

    op = getattr(d.details, "op", None)
    if op:
        found = locate(ctx, cid, nodes=[ctx.op_user_lines(cid, op)])
        if found.evidence == FX_NODE:
            return found
    mine = ctx.code_row(cid) or {}
    theirs = (ctx if origin["run_id"] == ctx.run_id
              else RunContext(ctx.r, origin["run_id"])).code_row(origin["compile_id"]) or {}
    same = all(mine.get(k) == theirs.get(k) for k in ("co_name", "filename", "lineno"))
    return d.user_frame if same and d.user_frame else locate(ctx, cid)
