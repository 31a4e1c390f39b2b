"""DDP under torch.compile, kind `ddp`: what the DistributedDataParallel wrapper does to the
compile (issue 31).

- `split`: DDPOptimizer (torch._dynamo.config.optimize_ddp) cut a compiled graph at DDP's
  gradient-bucket boundaries, so each bucket's all-reduce can start while backward still
  runs; each piece compiles on its own, with no fusion across a cut. Said once per split
  compile, at the line that built the DDP, with the buckets, the cuts' user lines, the cost
  (graphs, kernels) and torch's documented knobs.
- `split_failure`: a compile failed inside the split (the backend compiling one piece):
  pointed at the op at the cut that ends the failing piece, with `optimize_ddp = False` as
  the step that tells whether the split is involved.
- `fsdp_hooks`: a compiled region calling fully_shard'ed (FSDP2) submodules breaks at each
  call, at FSDP's hooks (which torch keeps out of Dynamo): named as FSDP's, with the per-unit
  compile as the fix; the graph_break diagnoses fold into it.
- `wrapper`: `torch.compile(DDP(model))` traces DDP's own forward, which graph-breaks
  (its logger, the `_inside_ddp_forward` context it may not trace): those breaks are DDP's,
  said at the DDP line with the call into DDP; and when nothing of the model compiled, that
  is said too. graph_break diagnoses of those breaks fold into it (the relations in its
  SPEC, analyses/consequences.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.consequences import Causes, same_compile
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import FX_NODE, SOURCE, TORCH, locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.runtime_fixes import known_error
from compdiag.analyses.traced_user_code import library_frame
from compdiag.formats.compile_id import first_attempt
from compdiag.formats.user_code import is_user_file
from compdiag.formats.words import plural

KIND = "ddp"
DDP_FILE = "/torch/nn/parallel/distributed.py"
DDP_BACKEND_FILE = "/torch/_dynamo/backends/distributed.py"
# DDPOptimizer's pieces are compiled with this flag, which AOTAutograd's cache refuses.
FAKIFY = "fakify_first_call"

SPLIT_EXPLANATION = (
    "DDPOptimizer splits a compiled graph of a DDP-wrapped model at DDP's gradient-bucket "
    "boundaries (bucket_cap_mb), so that each bucket's all-reduce can start while the rest of "
    "backward still runs. Each piece is compiled on its own: more graphs and kernels, and no "
    "fusion across a cut.")
SPLIT_FIX = (
    "The split is torch's default and usually worth its cost on several GPUs. To trade "
    "overlap for fewer cuts, raise bucket_cap_mb in the DDP(...) call (fewer, larger buckets); "
    "or set torch._dynamo.config.optimize_ddp = \"python_reducer\" with "
    "torch._dynamo.config.compiled_autograd = True (DDP's reducer traced into the compiled "
    "backward: one graph, all-reduces still overlapped); torch._dynamo.config.optimize_ddp = "
    "False keeps one graph but all-reduces wait for the whole backward.")
FAILURE_EXPLANATION = (
    "The compile failed inside DDPOptimizer's split: the backend was compiling one piece of "
    "the graph DDP's buckets cut. A piece can fail where the whole graph would not (its inputs "
    "and outputs are the tensors at the cuts), or fail for its own reasons.")
FAILURE_FIX = (
    "Set torch._dynamo.config.optimize_ddp = False (before the first compile) and run again: "
    "if the failure goes away, the split is involved (report it to PyTorch with the op at the "
    "cut; meanwhile keep optimize_ddp off or change bucket_cap_mb to move the cut); if it "
    "stays, the op fails on its own: see the failure it raised.")
NUMBER_EXPLANATION = (
    "DDPOptimizer cut the graph between a Python number's computation and its use, so one "
    "piece hands the number (a SymFloat or SymInt: a float attribute or an `.item()` Dynamo "
    "made dynamic) to the next as an output; AOTAutograd compiles a piece's outputs as "
    "tensors, and a number is not one, so compiling the piece fails (pytorch#196227). The "
    "same program runs in eager, and without the split.")
NUMBER_FIX = (
    "Keep the number from crossing the cut: compute it outside the compiled model or keep it "
    "a tensor (a buffer, `torch.tensor(value)`) so the graph passes a tensor; or keep such "
    "floats constants (`torch._dynamo.config.specialize_float = True`, one compile per "
    "value); or move the cut with bucket_cap_mb, or set torch._dynamo.config.optimize_ddp = "
    "False (one graph, all-reduces after the whole backward).")
WRAPPER_EXPLANATION = (
    "torch.compile of the DDP module traces DDP's own forward first: its logging and the "
    "context it sets for DDPOptimizer are not traceable, so Dynamo breaks the graph inside "
    "DistributedDataParallel.forward and compiles only what the model's forward does as a "
    "frame of its own.")
WRAPPER_FIX = (
    "Compile the module DDP wraps instead: `model = torch.compile(model)` (or "
    "`model.compile()`) before `DDP(model, ...)`. DDP's forward then runs eagerly, as it "
    "would anyway, and the model's forward compiles whole (DDPOptimizer still splits it at "
    "bucket boundaries).")
FSDP_DIR = "/torch/distributed/fsdp/"
FSDP_EXPLANATION = (
    "FSDP2 (fully_shard) all-gathers a unit's parameters in a hook before its forward and "
    "frees them after; torch runs those hooks outside Dynamo (torch._dynamo.disable, "
    "\"skipping FSDP hooks\"), so a compiled region that calls a fully_shard'ed submodule "
    "breaks its graph there, on every call.")
FSDP_FIX = (
    "Compile each fully_shard unit on its own instead of the model that holds them: "
    "`block.compile()` (or `torch.compile(block)`) for every sharded block, as torchtitan does "
    "per transformer block; FSDP's hooks then run eagerly between compiled blocks, and each "
    "block's graph is whole.")
# probes43d fsdp2_fullgraph_train_step: under fullgraph=True the break at FSDP's hook is an
# error, said as "`disable` is torch code Dynamo skips on purpose" with a fix to call
# `disable` outside (the user never calls it)
FSDP_FULLGRAPH_REASON = ("fullgraph=True turned the graph break at FSDP2's hook into an error: "
                         "the call into a fully_shard'ed submodule at line {lineno} runs FSDP's "
                         "pre-forward hook, which torch keeps out of Dynamo (\"skipping FSDP "
                         "hooks\")")
FSDP_FULLGRAPH_FIX = ("Drop fullgraph=True from this compile: a region that calls a "
                      "fully_shard'ed submodule always breaks at FSDP's hooks. Or " +
                      FSDP_FIX[0].lower() + FSDP_FIX[1:])
NOTHING_COMPILED_FIX = (
    "The model's own forward never became a compiled frame (a torch.nn container's forward "
    "called from DDP is not a frame torch.compile starts at): compile the model before "
    "wrapping it, `DDP(torch.compile(model), ...)`, or give it a forward of your own.")


@dataclass(frozen=True)
class DdpDetails(Details):
    omit_none = ("bucket_cap_mb", "wrapped_at", "failure", "compiled_at", "fatal")
    facet: str = "split"                       # split | split_failure | wrapper | fsdp_hooks
    compiled_at: dict[str, Any] | None = None  # wrapper: the torch.compile(ddp) line
    subgraphs: tuple[dict[str, Any], ...] = ()  # idx, params, param_bytes, ops, first, cut
    bucket_cap_mb: float | None = None
    bucket_bytes: tuple[int, ...] = ()         # DDPOptimizer's buckets, in graph order
    graphs: int = 0
    kernels: int = 0
    wrapped_at: dict[str, Any] | None = None   # the DDP(...) line
    ddp_breaks: tuple[dict[str, Any], ...] = ()  # DDP's own graph breaks: where, what
    model_compiles: tuple[str, ...] = ()       # the model's forward compiled under DDP
    failure: dict[str, Any] | None = None      # split_failure: the failure it explains
    # split_failure: the folded failure ended the program (as the failure kind's `fatal`): a
    # cause that folds its consequence says how the run ended too.
    fatal: bool | None = None


# Its graph breaks and failures file under the graph_break and failure classes (their kinds').
SPEC = KindSpec(KIND, title="DDP", words=("DDP", "DDP"), style="bold cyan", tie=110,
                # per extra graph, below a cache bypass, above the perf hints
                costs={"ddp": Cost(112, per_event=1.0, cap=5)},
                # a DDP split whose pieces bypass the compile cache (above the bypass)
                adjust={"cache_bypassed": 10.0}, details=(DdpDetails,),
                causes=(
                    Causes(KIND, "graph_break", "a break inside DistributedDataParallel's own "
                           "forward: the ddp diagnosis of torch.compile(DDP(...)) reports it",
                           lambda e, c, ctx: _facet_of_compile(e, c, "wrapper")),
                    Causes(KIND, "graph_break", "a break at FSDP2's hooks: the ddp diagnosis "
                           "of the fully_shard'ed calls reports it",
                           lambda e, c, ctx: _facet_of_compile(e, c, "fsdp_hooks")),
                    Causes(KIND, "failure", "fullgraph=True made the break at FSDP2's hook an "
                           "error: the ddp diagnosis of the fully_shard'ed call reports it",
                           lambda e, c, ctx: _facet_of_compile(e, c, "fsdp_hooks")),
                    Causes(KIND, "failure", "a compile failure inside DDPOptimizer's split: "
                           "the ddp diagnosis reports it with the piece and the bisecting step",
                           lambda e, c, ctx: _facet_of_compile(e, c, "split_failure")),
                    Causes(KIND, "cache", "DDPOptimizer's pieces are compiled with "
                           "fakify_first_call, which the AOTAutograd cache refuses: the ddp "
                           "diagnosis of the split reports it",
                           lambda e, c, ctx: FAKIFY in e.reason
                           and _facet_of_compile(e, c, "split", "split_failure"))))


def _facet_of_compile(effect: Diagnosis, cause: Diagnosis, *facets: str) -> bool:
    """The cause is a ddp diagnosis of one of `facets` about the effect's compile."""
    return cause.details.facet in facets and same_compile(effect, cause)


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _mib(n: int | float | None) -> str:
    if not n:
        return "0 MiB"
    return f"{n / 2 ** 20:.3g} MiB"


def _is_ddp_frame(f: dict[str, Any]) -> bool:
    return DDP_FILE in (f.get("filename") or "").replace("\\", "/")


def _wrap_frame(ctx: Any, wraps: list[dict[str, Any]], via: str = "DDP") -> UserFrame:
    """The last line that wrapped a module `via` DDP(...) or torch.compile(ddp)."""
    for w in reversed([w for w in wraps if (w.get("via") or "DDP") == via]):
        if w.get("filename") and w.get("lineno"):
            return ctx.frame(w["filename"], w["lineno"], w.get("line"), SOURCE)
    return UserFrame()


def _where(ctx: Any, prefix: str, row: dict[str, Any]) -> dict[str, Any] | None:
    fn, ln = row.get(f"{prefix}_filename"), row.get(f"{prefix}_lineno")
    if not fn or not ln:
        return None
    return ctx.frame(fn, ln, row.get(f"{prefix}_line"), FX_NODE).to_json()


def _short(frame: dict[str, Any] | None) -> str:
    if not frame:
        return "?"
    return f"{os.path.basename(frame['filename'])}:{frame['lineno']}"


def _splits_by_compile(ctx: Any) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in ctx.r.ddp_splits(ctx.run_id):
        out.setdefault(row["compile_id"], []).append(row)
    return out


def _buckets_by_compile(ctx: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for row in ctx.r.ddp_buckets(ctx.run_id):
        slot = out.setdefault(row["compile_id"], {})
        slot.update({k: v for k, v in row.items() if v not in (None, [], 0)})
    return out


def _subgraphs(ctx: Any, rows: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    return tuple({"idx": r["idx"], "params": len(r.get("param_names") or []),
                  "param_bytes": r["param_bytes"], "ops": r["ops"],
                  "first": _where(ctx, "first", r), "cut": _where(ctx, "last", r),
                  "cut_op": r.get("last_op")} for r in sorted(rows, key=lambda r: r["idx"]))


def _split(ctx: Any, cid: str, rows: list[dict[str, Any]], buckets: dict[str, Any],
           wraps: list[dict[str, Any]]) -> Diagnosis:
    subs = _subgraphs(ctx, rows)
    kernels = len(ctx.r.kernels(ctx.run_id, cid))
    cap = buckets.get("cap_bytes")
    cap_mb = cap / 2 ** 20 if cap else next(
        (w["bucket_cap_mb"] for w in reversed(wraps) if w.get("bucket_cap_mb")), None)
    sizes = tuple(buckets.get("sizes") or (s["param_bytes"] for s in subs))
    # a cut whose user line is not known is left out (probes48a: "cuts after ?")
    cuts = [_short(s["cut"]) for s in subs[:-1] if s["cut"]]
    cut_words = f"cuts after {', '.join(cuts)}; " if cuts else ""
    fn = ctx.user_fn_name(cid) or "the compiled function"
    reason = (f"DDPOptimizer split {fn} into {len(subs)} graphs at DDP's bucket boundaries "
              f"(bucket_cap_mb={cap_mb:g}; buckets of {', '.join(_mib(s) for s in sizes)}); "
              f"{cut_words}{plural(kernels, 'kernel')} in all"
              if cap_mb else
              f"DDPOptimizer split {fn} into {len(subs)} graphs at DDP's bucket boundaries; "
              f"{cut_words}{plural(kernels, 'kernel')} in all")
    if buckets.get("extended"):
        reason += " (torch grew a bucket past the cap to give each piece an output)"
    bypassed = [e for e in ctx.r.cache_events(ctx.run_id, cid)
                if e.get("result") == "bypass" and FAKIFY in (e.get("reason") or "")]
    if bypassed:
        caches = " and ".join(dict.fromkeys(e["cache"] for e in bypassed))
        reason += (f"; the pieces bypass the {caches} cache ({FAKIFY}, set by the split), so "
                   f"every start compiles them cold")
    wrapped = _wrap_frame(ctx, wraps)
    # the split is DDP's design, usually worth its cost (SPLIT_FIX): information, as benign
    # fusion refusals are, unless it is measured (probes48a ddp_bucket_cap_1mb_ok, the
    # right way, was "1 problem")
    return Diagnosis(
        KIND, stage="dynamo", compile_id=cid, reason=reason, severity="info",
        user_frame=wrapped or locate(ctx, cid), explanation=SPLIT_EXPLANATION,
        fix=SPLIT_FIX,
        score=SPEC.score("ddp", len(subs) - 1, *(("cache_bypassed",) if bypassed else ())),
        details=DdpDetails(facet="split", subgraphs=subs, bucket_cap_mb=cap_mb,
                           bucket_bytes=sizes, graphs=len(subs), kernels=kernels,
                           wrapped_at=wrapped.to_json() if wrapped else None))


def _failing_piece(ctx: Any, cid: str, rows: list[dict[str, Any]],
                   submodule: str | None = None) -> dict[str, Any]:
    """The piece whose compile raised: the submodule torch said it was executing
    (`submod_N`, stored at ingest); else, as pieces compile in graph order, each starting
    with its AOT forward graph, the last one started (a piece that fails in the partitioner,
    before its forward graph is logged, is the next one: torch's word decides)."""
    named = [r for r in rows if submodule and r.get("name") == submodule]
    if named:
        return named[0]
    kinds = {k["kind"]: k["n"] for k in ctx.r.compile_record_kinds(ctx.run_id, cid)}
    started = kinds.get("aot_forward_graph", 0) or kinds.get("aot_joint_graph", 0)
    ordered = sorted(rows, key=lambda r: r["idx"])
    return ordered[min(max(started - 1, 0), len(ordered) - 1)]


def _crossing_number(ctx: Any, piece: dict[str, Any] | None, rows: list[dict[str, Any]]
                     ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the piece, the number) for a Python number a piece hands to a later one, at a user
    line, where that piece is the failing one or before it (the failing piece's own first):
    the cause of a piece that cannot be compiled."""
    if piece is None:
        return None
    for row in sorted(rows, key=lambda r: (r["idx"] != piece["idx"], r["idx"])):
        if row["idx"] > piece["idx"]:
            continue
        for number in row.get("number_outputs") or []:
            if isinstance(number, dict) and number.get("lineno") and \
                    is_user_file(ctx.resolve(number.get("filename"))):
                return row, number
    return None


def _split_failures(ctx: Any, splits: dict[str, list[dict[str, Any]]],
                    buckets: dict[str, dict[str, Any]],
                    wraps: list[dict[str, Any]]) -> list[Diagnosis]:
    out = []
    for f in ctx.r.failures(ctx.run_id):
        cid = f.get("compile_id")
        base = first_attempt(cid)
        rows = splits.get(cid) or splits.get(base) or []
        in_split = bool(rows) or DDP_BACKEND_FILE in (f.get("traceback") or "")
        if not cid or not in_split or f.get("stage") in ("runtime", "accuracy"):
            continue
        own = ctx.frame(f["filename"], f["lineno"], f.get("line"), TORCH) \
            if f.get("filename") and f.get("lineno") and is_user_file(f["filename"]) \
            else UserFrame()
        piece = _failing_piece(ctx, cid, rows, f.get("submodule")) if rows else None
        cut = _where(ctx, "last", piece) if piece else None
        where = UserFrame.of(cut) if cut else (own or _wrap_frame(ctx, wraps)
                                                 or locate(ctx, cid))
        n = len(rows)
        piece_words = (f"piece {piece['idx'] + 1} of {n} (the cut after {_short(cut)})"
                       if piece else "a piece of DDPOptimizer's split")
        reason = (f"{f.get('exc_type') or 'failure'} while compiling {piece_words} of the "
                  f"graph DDP's buckets split: {f.get('message') or ''}").strip()
        explanation, fix = FAILURE_EXPLANATION, FAILURE_FIX
        crossing = _crossing_number(ctx, piece, rows)
        said = f"{f.get('message')}\n{f.get('torch_message')}"
        if crossing is None and known_error(said, f.get("stage") or "runtime"):
            continue  # the op's own known error (probes48a qat_amax): the failure kind's
        if crossing is not None:
            row, number = crossing
            said = f"`{number['line']}`" if number.get("line") else number["name"]
            reason = (f"a Python number crosses DDPOptimizer's cut: {said} (line "
                      f"{number.get('lineno')}) is an output of piece {row['idx'] + 1} of "
                      f"{n}, and compiling {piece_words} failed: "
                      f"{f.get('exc_type') or 'failure'}: {f.get('message') or ''}").strip()
            where = ctx.frame(number["filename"], number["lineno"], number.get("line"),
                              FX_NODE)
            explanation, fix = NUMBER_EXPLANATION, NUMBER_FIX
        out.append(Diagnosis(
            KIND, stage=f.get("stage"), compile_id=cid, reason=reason[:1000],
            user_frame=where, explanation=explanation + (
                " The exception ended the program." if ctx.crashed else ""), fix=fix,
            score=SPEC.score("crash" if ctx.crashed else "failure"),
            torch_message=f.get("torch_message"),
            details=DdpDetails(facet="split_failure", subgraphs=_subgraphs(ctx, rows),
                               graphs=n, fatal=True if ctx.crashed else None,
                               bucket_bytes=tuple(
                                   (buckets.get(cid) or {}).get("sizes") or ()),
                               failure={"stage": f.get("stage"), "exc_type": f.get("exc_type"),
                                        "message": f.get("message"),
                                        "op_frame": own.to_json() if own else None})))
    return out


def _ddp_break(b: dict[str, Any]) -> bool:
    """A graph break inside DDP's own code: its stack's innermost DDP frame has no user
    frame below it (a break in the model's forward, called from DDP, has)."""
    stack = b.get("user_stack") or []
    last_ddp = max((i for i, f in enumerate(stack) if _is_ddp_frame(f)), default=None)
    if last_ddp is None:
        return DDP_FILE in (b.get("filename") or "")
    return not any(is_user_file(f.get("filename")) for f in stack[last_ddp + 1:])


def _wrapper(ctx: Any, wraps: list[dict[str, Any]]) -> list[Diagnosis]:
    breaks = [b for b in ctx.r.graph_breaks(ctx.run_id) if _ddp_break(b)]
    if not breaks:
        return []
    model = []
    for cid, c in ctx.compiles.items():
        stack = ctx.start_stack(cid)
        if first_attempt(cid) != cid or not any(_is_ddp_frame(f) for f in stack):
            continue
        if is_user_file(ctx.resolve(c.get("filename"))) or \
                (c.get("co_name") == "forward" and not _is_ddp_frame(c)):
            model.append(cid)
    seen: dict[str, dict[str, Any]] = {}
    for b in breaks:
        stack = b.get("user_stack") or []
        inner = next((f for f in reversed(stack) if _is_ddp_frame(f)), {})
        key = f"{inner.get('name') or '?'}: {b.get('gb_type') or b.get('reason')}"
        seen.setdefault(key, {"compile_id": b["compile_id"], "what": key,
                              "ddp_line": inner.get("lineno"), "n": 0})["n"] += 1
    call = locate(ctx, breaks[0]["compile_id"], torch=[breaks[0].get("user_stack") or []])
    wrapped = _wrap_frame(ctx, wraps)
    compiled_at = _wrap_frame(ctx, wraps, "torch.compile")
    what = "; ".join(f"{v['what']}" + (f" ×{v['n']}" if v["n"] > 1 else "")
                     for v in seen.values())
    if model:
        tail = (f"the model's forward compiled as its own frame "
                f"({', '.join(model)})")
        fix, adjust = WRAPPER_FIX, ()
    else:
        tail = "nothing of the model was compiled"
        fix, adjust = NOTHING_COMPILED_FIX, ("frame_skipped",)
    where = [f"called at {_short(call.to_json())}"] if call else []
    if compiled_at and wrapped:
        where.append(f"DDP built at {_short(wrapped.to_json())}")
    reason = (f"torch.compile(DDP(...)) traced DistributedDataParallel's own forward: "
              f"{plural(len(breaks), 'graph break')} in DDP ({what}); {tail}"
              + (f" ({', '.join(where)})" if where else ""))
    cids = tuple(dict.fromkeys(b["compile_id"] for b in breaks))
    return [Diagnosis(
        KIND, stage="dynamo", compile_id=cids[0], reason=reason,
        user_frame=compiled_at or wrapped or call, explanation=WRAPPER_EXPLANATION, fix=fix,
        score=SPEC.score("graph_break", len(breaks), *adjust), count=len(breaks),
        compile_ids=cids,
        details=DdpDetails(facet="wrapper", wrapped_at=wrapped.to_json() if wrapped else None,
                           compiled_at=compiled_at.to_json() if compiled_at else None,
                           ddp_breaks=tuple(seen.values()), model_compiles=tuple(model)))]


def _in_fsdp_hook(b: dict[str, Any]) -> bool:
    """A break at one of FSDP2's hooks: torch disables Dynamo on them ("skipping FSDP hooks"),
    so the innermost frames past the user's call are fully_shard's."""
    stack = b.get("user_stack") or []
    last_user = max((i for i, f in enumerate(stack) if is_user_file(f.get("filename"))),
                    default=-1)
    inner = stack[last_user + 1:] or [{"filename": b.get("filename")}]
    return any(FSDP_DIR in (f.get("filename") or "").replace("\\", "/") for f in inner)


def _fsdp(ctx: Any) -> list[Diagnosis]:
    breaks = [b for b in ctx.r.graph_breaks(ctx.run_id) if _in_fsdp_hook(b)]
    if not breaks:
        return _fsdp_fullgraph(ctx)
    calls: dict[tuple, dict[str, Any]] = {}
    for b in breaks:
        frame = locate(ctx, b["compile_id"], torch=[b.get("user_stack") or []])
        calls.setdefault((frame.filename, frame.lineno), {"frame": frame, "n": 0})["n"] += 1
    first = next(iter(calls.values()))["frame"]
    where = ", ".join(f"{_short(c['frame'].to_json())}" + (f" ×{c['n']}" if c["n"] > 1 else "")
                      for c in calls.values() if c["frame"])
    cids = tuple(dict.fromkeys(b["compile_id"] for b in breaks))
    return [Diagnosis(
        KIND, stage="dynamo", compile_id=cids[0],
        reason=(f"{plural(len(breaks), 'graph break')} at FSDP2's hooks: each call into a "
                f"fully_shard'ed submodule runs FSDP's pre-forward hook, which torch keeps out "
                f"of Dynamo (\"skipping FSDP hooks\"); calls at {where}"),
        user_frame=first, explanation=FSDP_EXPLANATION, fix=FSDP_FIX,
        score=SPEC.score("graph_break", len(breaks)), count=len(breaks), compile_ids=cids,
        details=DdpDetails(facet="fsdp_hooks"))]


def _fsdp_fullgraph(ctx: Any) -> list[Diagnosis]:
    """Dynamo's failures under fullgraph=True whose library frame is FSDP2's hook."""
    out = []
    for f in ctx.failures:
        lib = library_frame(ctx, f.get("traceback")) if f.get("stage") == "dynamo" else None
        if not lib or FSDP_DIR not in str(lib.get("filename") or "").replace("\\", "/"):
            continue
        frame = locate(ctx, f.get("compile_id"), torch=[[f]] if is_user_file(
            f.get("filename")) else [])
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=f.get("compile_id"),
            reason=FSDP_FULLGRAPH_REASON.format(lineno=frame.lineno),
            user_frame=frame, explanation=FSDP_EXPLANATION, fix=FSDP_FULLGRAPH_FIX,
            score=SPEC.score("graph_break", 1), details=DdpDetails(facet="fsdp_hooks")))
        break
    return out


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    wraps = [w for w in ctx.r.ddp_wraps(ctx.run_id)]
    splits = _splits_by_compile(ctx)
    buckets = _buckets_by_compile(ctx)
    failed = {first_attempt(f.get("compile_id")) for f in ctx.r.failures(ctx.run_id)}
    out = [_split(ctx, cid, rows, buckets.get(cid) or {}, wraps)
           for cid, rows in splits.items() if len(rows) > 1 and first_attempt(cid) not in failed]
    out += _split_failures(ctx, splits, buckets, wraps)
    out += _wrapper(ctx, wraps)
    out += _fsdp(ctx)
    return out
