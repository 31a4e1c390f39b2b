"""CUDA graphs under mode='reduce-overhead': a graph skipped (the reason torch gave, the user
line it points at: its 'Found from' frames, or the op a partition left out), a graph split into
partitions with some of it left out (the ops that split it), and a graph recorded again for
each new input size (re-recording: the sizes, and the dynamic-shape fixes). One diagnosis per
(reason, line); cost: the `cudagraph` band plus the count."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.rebinding import input_attribute, rebinding_frame
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.cudagraph_coverage import MEMORY_NOTE, distinct_sizes
from compdiag.analyses.rules import Words, first, found, one_of
from compdiag.formats.compile_id import sort_key
from compdiag.ingest.parsers import user_line_frame

KIND = "cudagraph"
# The problems this kind reports (CudagraphDetails.problem).
SKIPPED, PARTITIONED_GRAPH, RERECORDED_GRAPH = "skipped", "partitioned", "rerecorded"
SLOWED_GRAPH = "slow_path"  # recorded, yet calls could not replay it
OVERWRITTEN = "overwritten"  # outputs kept across calls, overwritten by a replay


@dataclass(frozen=True)
class CudagraphDetails(Details):
    """Which problem a diagnosis is: `skipped` (torch recorded no CUDA graph for the graph),
    `partitioned` (some partitions run outside CUDA graphs), `rerecorded` (one recording
    per input size) or `slow_path` (recorded, yet calls could not replay it). For compdiag's
    readers (perf's limiter); not in the JSON."""
    internal: ClassVar[tuple[str, ...]] = ("problem",)
    problem: str = SKIPPED


SPEC = KindSpec(KIND, title="CUDA graphs", words=("CUDA-graph problem", "CUDA-graph problems"),
                style="cyan", tie=50, costs={"cudagraph": Cost(250, per_event=1.0, cap=50),
                       # wrong values with no error: with the other silent-result causes
                       OVERWRITTEN: Cost(903)},
                # CUDA graphs cover part of a graph (partitioned), not none
                adjust={"partial_coverage": -20.0}, details=(CudagraphDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]

# (words in torch's reason, the fix), first match wins (analyses/rules.py).
RULES: tuple[tuple[Words, str], ...] = (
    (one_of("mutated inputs"), "An input is mutated in place inside the graph: return a new tensor "
     "instead of mutating the argument (or mutate only buffers), so the graph can be replayed."),
    (one_of("unbacked binding"), "An op with a data-dependent output (nonzero, item, unique...) "
     "splits the graph: that partition runs without CUDA graphs. Keep shapes static (a mask "
     "with torch.where instead of nonzero) or move the op out of the compiled region."),
    (one_of("cpu ops"), "A CPU op sits in the graph, so its partition runs without CUDA graphs: "
     "move the tensor it uses to CUDA (`.cuda()` once, outside the loop)."),
    (one_of("cpu device"), "A CPU tensor is part of the graph: move every input and constant "
     "to CUDA (or keep CPU scalars as Python numbers)."),
    (one_of("non-cuda"), "A non-CUDA input reached the graph: move every input to the GPU."),
    (one_of("dynamic shape"), "Input sizes vary: pad to a few fixed sizes, or mark the dimension "
     "static; each distinct size records its own graph."),
    (one_of("incompatible op"), "An op that cannot be captured (CPU sync, data-dependent output, "
     "RNG/collective) is in the graph: move it outside the compiled region or replace it."),
    (one_of("complex"), "Complex tensors are not supported by CUDA graphs: keep them outside."),
    (one_of("deterministic"), "torch.use_deterministic_algorithms is incompatible with this op "
     "under CUDA graphs."),
)
FALLBACK_FIX = ("Remove what the reason names from the compiled region, or compile this "
                "function without mode='reduce-overhead'.")
EXPLANATION = ("mode='reduce-overhead' records the compiled graph as a CUDA graph; this graph "
               "could not be recorded and runs without it, paying the kernel-launch overhead "
               "on every call.")


def cudagraph_fix(reason: str) -> str:
    return first(RULES, reason, default=FALLBACK_FIX)


RERECORD_EXPLANATION = (
    "cudagraph_trees records a separate CUDA graph for every distinct set of input sizes; each "
    "recording warms up, captures and keeps its own memory in the pool, and a size that keeps "
    "changing records again and again instead of replaying.")
RERECORD_FIX = (
    "Keep the sizes the graph sees few and fixed: pad inputs up to a few bucket sizes (e.g. "
    "the next multiple of 64 or power of two) so each bucket records once; or mark the varying "
    "dimension dynamic up front (`torch._dynamo.mark_dynamic(x, 0)`, or compile with "
    "dynamic=True) so one graph serves every size (cudagraph_trees still records per distinct "
    "size, so bucket as well when sizes vary widely); and when outputs of one step are "
    "overwritten or kept alive across steps, call `torch.compiler.cudagraph_mark_step_begin()` "
    "at the start of each iteration.")
# The recordings are keyed by the value of an int argument Dynamo made dynamic (its recompile
# on `N == value`): each value is a new key of cudagraph_trees.
INT_KEY_EXPLANATION = (
    "cudagraph_trees keys its recordings by the graph's int inputs as well as its sizes: {ints} "
    "became a dynamic int after the recompile on its value, so every new value records a new "
    "CUDA graph (warm-up, capture, memory) instead of replaying one.")
INT_KEY_FIX = (
    "Pass {ints} as a 0-d tensor on the GPU (`torch.tensor(value, device='cuda')`, updated in "
    "place with `.fill_()` or `.copy_()` each step) so one CUDA graph serves every value; or, "
    "where it takes only a few values, keep it a Python int and let each value record once.")
PARTITION_EXPLANATION = (
    "Inductor split this graph into partitions (graph_partition): the CUDA-graphed ones replay "
    "as CUDA graphs, the ops listed run outside them with a kernel launch each, between "
    "replays.")
PARTITION_FIX = (
    "Move what splits the graph out of the compiled region or onto the GPU (a CPU tensor "
    "`.cuda()` once outside the loop, a device copy done before the call), so the graph records "
    "as one CUDA graph.")
# A split torch names as data-dependent: the partitions after it see sizes that change with
# the data, so cudagraph_trees records them again whenever the data brings a new size (the
# H200 run of corpus/gpu/cg_incompatible_op.py: nonzero on the same [16] input recorded twice).
DATA_DEPENDENT_SPLIT = one_of("unbacked")
# cudagraph_trees re-records a graph whose recording no longer fits a call of the same sizes:
# its invariant check names why (torch/_inductor/cudagraph_utils.py CheckInvariantStatus).
# (words of the reason, what the user does about it)
REASON_FIXES = (
    (one_of("static input data pointer changed"),
     "A static input of the recorded graph (a parameter or buffer, or a tensor marked static) "
     "is a different tensor at each call, and the recording baked in its address: update it "
     "in place (`with torch.no_grad(): param.copy_(new_value)`) instead of assigning a new "
     "tensor or nn.Parameter to the attribute, so every call passes the same storage."),
    (one_of("cudagraph managed tensor data pointer changed"),
     "An input is an output of an earlier CUDA-graph replay, from a different output or step "
     "than at recording: `.clone()` it before passing it on, or call "
     "`torch.compiler.cudagraph_mark_step_begin()` at the start of each iteration."),
    (one_of("dead", "live"),
     "Outputs of an earlier replay are still alive when the graph runs again: drop or "
     "`.clone()` them before the next call, and call "
     "`torch.compiler.cudagraph_mark_step_begin()` at the start of each iteration."),
)
REREASON_EXPLANATION = (
    "cudagraph_trees checks at each call that the recorded CUDA graph still fits the inputs "
    "(the same addresses for static inputs, the same live outputs); when the check fails it "
    "records the graph again instead of replaying it, and past its re-record limit it runs "
    "the function without CUDA graphs.")
# cudagraph_trees' warnings that a call could not take the fast path (replaying the recorded
# graph), by the words of each torch since 2.11, rules as data: (words, what it means, fix).
SLOW_PATH: tuple[tuple[Words, tuple[str, str, str]], ...] = (
    (one_of("pending, uninvoked backwards", "still require backward"), (
        "outputs of an earlier call still wait for their backward",
        "CUDA-graph trees replay a recorded graph only when the previous step is over: its "
        "outputs freed, or their backward run. Outputs that require grad and are never "
        "backpropagated (a value returned for logging, gradients computed inside the compiled "
        "function with torch.func) keep each step pending, so every call warms up and records "
        "again instead of replaying: the speed of mode='reduce-overhead' is lost and memory "
        "grows with each new recording.",
        "Call `torch.compiler.cudagraph_mark_step_begin()` before each call of the compiled "
        "function, or `.detach()` the outputs you keep (or run their backward). "
        "torch.no_grad() helps only where nothing inside the function needs gradients.")),
)
SLOWED = "CUDA graphs not replayed:"
RERECORDED = "CUDA graphs re-recorded:"
PARTITIONED = "CUDA graphs partitioned:"
_SPLIT_OP = re.compile(r"\b\w+\.(\w+)\.\w+\(")  # aten.x.default(, a custom op ns.x.default(


def _split_frames(ctx: Any, cid: str | None, splits: list[dict[str, Any]]) -> list[dict]:
    """User lines of the ops that split a graph: the FX op a scheduler line names, or the
    kernel a cached wrapper calls outside the partitions (its '# File:' lines)."""
    frames: list[dict[str, Any]] = []
    kernels = None
    for s in splits:
        for op in _SPLIT_OP.findall(s.get("fx") or ""):
            frames += ctx.op_user_lines(cid, op)
        if not frames and (s.get("node") or "").startswith(("cpp_", "triton_")):
            if kernels is None:
                kernels = {k["name"]: k for k in ctx.r.kernels(ctx.run_id, cid,
                                                               with_source=False)}
            for line in (kernels.get(s["node"]) or {}).get("user_lines") or []:
                f = user_line_frame(line)
                if f:
                    frames.append(f)
        if frames:
            break
    # The first op in graph order: a graph node's line, not a later node of the same op.
    return frames[:1]


def _coverage_diagnoses(ctx: Any) -> list[Diagnosis]:
    """Partitions with work left out, and graphs recorded more than once for other sizes."""
    from compdiag.analyses.cudagraph_coverage import coverage

    cov = coverage(ctx.r, ctx.run_id)
    if not cov:
        # No recording line kept (the program set the cudagraphs log to INFO itself), yet
        # cudagraph_trees' own lines may still say it recorded per size.
        return _rerecord_diagnoses(ctx, {"graphs": [], "memory": MEMORY_NOTE})
    out = []
    for g in cov["graphs"]:
        cid = g["compile_id"]
        parts = g["partitions"] or {}
        if g["status"] == "partitioned":
            splits = g["splits"]
            why = sorted({s["reason"] for s in splits if s.get("reason")})
            n_out = parts.get("non_cudagraphable")
            # Its re-recordings are this split's consequence, not a problem of their own.
            again = (f"; recorded {len(g['recordings'])} times for "
                     f"{len(g['recorded_sizes'])} data-dependent sizes"
                     if _data_dependent(g) and len(g["recorded_sizes"]) > 1 else "")
            # What split it has its own fix when torch named it (cpu ops, unbacked binding...)
            # (RULES' order decides between several: 'unbacked binding' before 'cpu ops').
            fix = cudagraph_fix(" ".join(why)) if why else PARTITION_FIX
            fix = PARTITION_FIX if fix == FALLBACK_FIX else fix
            out.append(Diagnosis(
                KIND, stage="inductor", compile_id=cid,
                reason=(f"{PARTITIONED} {parts.get('cudagraphable')} CUDA-graphed "
                        f"partition(s), {n_out if n_out is not None else 'some'} left out"
                        + (f" (split by {', '.join(why)})" if why else "") + again),
                user_frame=locate(ctx, cid, nodes=[_split_frames(ctx, cid, splits)]),
                explanation=PARTITION_EXPLANATION, fix=fix,
                score=SPEC.score(KIND, 0, "partial_coverage", order=-len(splits)),
                count=max(1, len(splits)), compile_ids=(cid,) if cid else (),
                details=CudagraphDetails(PARTITIONED_GRAPH)))
    out += _rerecord_diagnoses(ctx, cov)
    return out


def _rerecord_diagnoses(ctx: Any, cov: dict[str, Any]) -> list[Diagnosis]:
    """Re-recording: one function's graphs recorded for more than one set of sizes, counted
    from what torch says three ways (issue 29 §6): the recordings (per partition: a graph of
    two partitions records two functions for one size), the trees cudagraph_trees recorded
    for new int keys, and its warning that it observed N distinct sizes (once, past its warn
    limit). At the call that brought the second size, when capture saw it."""
    trees = ctx.r.cudagraph_trees(ctx.run_id)
    recordings = ctx.r.cudagraph_recordings(ctx.run_id)  # with the call of each, if seen
    by_fn: dict[Any, list[dict[str, Any]]] = {}
    for g in cov["graphs"]:
        by_fn.setdefault(_fn_key(ctx, g["compile_id"]), []).append(g)
    # A compile cudagraph_trees counted whose recording lines were not kept joins as a graph
    # without recordings.
    graphed = {g["compile_id"] for g in cov["graphs"]}
    for cid in dict.fromkeys(t["compile_id"] for t in trees if t["compile_id"] not in graphed):
        by_fn.setdefault(_fn_key(ctx, cid), []).append(
            {"compile_id": cid, "recordings": [], "splits": [], "reason": None})
    out = []
    for gs in by_fn.values():
        # A graph torch skipped is the skip's diagnosis (its fix covers varying sizes), even
        # where cudagraph_trees still recorded per size (pytorch/pytorch#196385); a graph
        # split by a data-dependent op records again for each size the data brings: the
        # split's diagnosis says so, with the fix that stops both.
        gs = [g for g in gs if not g.get("reason") and not _data_dependent(g)]
        cids = {g["compile_id"] for g in gs}
        recs = [r for r in recordings if r["compile_id"] in cids]
        by_part: dict[Any, list[dict[str, Any]]] = {}
        for r in recs:
            # one graph recorded again keeps its inputs' count and ranks (only sizes change):
            # a forward and its backward, both `partition_0`, are two graphs, not re-recordings
            by_part.setdefault((r.get("function"), _ranks(r)), []).append(r)
        part = max(by_part.values(), key=lambda rs: len(distinct_sizes(rs)), default=[])
        sizes = distinct_sizes(part)
        mine = [t for t in trees if t["compile_id"] in cids]
        keys = {(t["compile_id"], t["key"]) for t in mine if t["key"] is not None}
        observed = max((t["observed"] or 0 for t in mine), default=0)
        n_sizes = max(len(sizes), len(keys), observed)
        n_recs = max(max((len(rs) for rs in by_part.values()), default=0), len(keys), observed)
        if n_sizes < 2:
            out += _rerecord_reasons(ctx, cids)
            continue
        graphs = tuple(sorted((c for c in cids if c), key=sort_key))
        varying = _varying(sizes)   # one size set seen: the recordings' sizes are not known
        shown = ", ".join(_fmt_sizes([r[i] for i in varying if i < len(r)])
                          for r in sizes[:6]) + (", ..." if len(sizes) > 6 else "") \
            if varying else ""
        warned = f"; torch warned it observed {observed} distinct sizes" if observed else ""
        ints = _int_keys(ctx, cids) if len(keys) > len(sizes) else ""
        what = f"values of {ints}" if ints else "input sizes"
        out.append(Diagnosis(
            KIND, stage="runtime", compile_id=graphs[0] if graphs else None,
            reason=(f"{RERECORDED} {n_recs} recordings for {n_sizes} {what}"
                    + (f" ({shown})" if shown else "") + f" across {len(graphs)} compile(s)"
                    + warned),
            user_frame=locate(ctx, graphs[0] if graphs else None,
                              calls=[_new_size_call(mine, part)]),
            explanation=(INT_KEY_EXPLANATION.format(ints=ints) if ints else
                         RERECORD_EXPLANATION) + " " + _memory_note(cov),
            fix=INT_KEY_FIX.format(ints=ints) if ints else RERECORD_FIX,
            score=SPEC.score(KIND, n_recs), count=n_recs,
            compile_ids=graphs, details=CudagraphDetails(RERECORDED_GRAPH)))
    return out


def _ranks(recording: dict[str, Any]) -> tuple[int, ...] | None:
    """The rank of each input a recording was made for; None where its sizes were not kept."""
    sizes = recording.get("sizes")
    return tuple(len(s) if isinstance(s, list) else -1 for s in sizes) \
        if isinstance(sizes, list) else None


def _int_keys(ctx: Any, cids: set[Any]) -> str:
    """The int arguments whose values key the recordings: those the compiles recompiled on by
    value (recompile_events' `guarded` of a `value` guard), as the user wrote them."""
    names = [e["guarded"] for e in ctx.r.recompile_events(ctx.run_id)
             if e.get("compile_id") in cids and e.get("category") == "value"
             and e.get("guarded")]
    return ", ".join(f"`{n}`" for n in dict.fromkeys(names))


def _rerecord_reasons(ctx: Any, cids: set[Any]) -> list[Diagnosis]:
    """Re-recordings of one size, each for the reason cudagraph_trees logged (issue 29 §6:
    however torch reports them), one diagnosis per reason, at the call that made the first."""
    again = [r for r in ctx.r.cudagraph_rerecords(ctx.run_id) if r["compile_id"] in cids]
    recorded: dict[Any, int] = {}
    for rec in ctx.r.cudagraph_recordings(ctx.run_id):
        recorded[rec["compile_id"]] = recorded.get(rec["compile_id"], 0) + 1
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for r in again:
        by_reason.setdefault(r.get("reason") or "", []).append(r)
    out = []
    for why, rs in by_reason.items():
        graphs = tuple(sorted({r["compile_id"] for r in rs if r["compile_id"]}, key=sort_key))
        inputs = sorted({r["input"] for r in rs if r.get("input")})
        named = f" (graph input {', '.join(inputs[:3])})" if inputs else ""
        # torch's own pointer first: the changed input's first use ("input stack trace")
        frame = locate(ctx, graphs[0] if graphs else None,
                       torch=[r["frames"] for r in rs if r.get("frames")][:1],
                       calls=[r["call"] for r in rs if r.get("call")][:1])
        # the line that rebinds the attribute behind the changed input, where the program
        # shows one (the fix changes it): evidence `source`, before the call
        attr = input_attribute(ctx, rs[0]["compile_id"], inputs[0] if inputs else None)
        frame = rebinding_frame(ctx, frame, attr) or frame
        out.append(Diagnosis(
            KIND, stage="runtime", compile_id=graphs[0] if graphs else None,
            reason=f"{RERECORDED} {_checks(len(rs), recorded.get(graphs[0]) if graphs else 0)}"
                   f": {why}{named}",
            user_frame=frame,
            explanation=REREASON_EXPLANATION,
            fix=first(REASON_FIXES, why, default=RERECORD_FIX),
            score=SPEC.score(KIND, len(rs)), count=len(rs), compile_ids=graphs,
            details=CudagraphDetails(RERECORDED_GRAPH)))
    return out


def _checks(failed: int, recordings: int | None) -> str:
    """What the re-record lines count: torch logs one for each recorded graph whose check
    failed at a call (every earlier recording is tried first), not one per new recording."""
    made = f", {recordings} recordings" if recordings and recordings > 1 else ""
    return f"{failed} failed checks of a recorded graph at one input size{made}"


def _slow_path_diagnoses(ctx: Any) -> list[Diagnosis]:
    """torch warned that calls could not replay their CUDA graph (SLOW_PATH): one diagnosis
    per rule, at the user's call running when torch first warned (capture's), else the call
    that recorded the graph."""
    by_rule: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for w in ctx.r.torch_warnings(ctx.run_id):
        rule = first(SLOW_PATH, w.get("message"))
        if rule:
            by_rule.setdefault(rule, []).append(w)
    if not by_rule:
        return []
    trees = ctx.r.cudagraph_trees(ctx.run_id)
    graphed = [c["compile_id"] for c in ctx.r.cudagraphs(ctx.run_id) if c.get("applied")]
    out = []
    for (means, explanation, fix), ws in by_rule.items():
        w = ws[0]
        cid = w.get("compile_id") or next(iter(graphed + [t["compile_id"] for t in trees]),
                                          None)
        calls = [w.get("call")] + [t["call"] for t in trees if t.get("call")][:1]
        said = (w.get("message") or "").split(". ")[0]
        out.append(Diagnosis(
            KIND, stage="runtime", compile_id=cid,
            reason=f"{SLOWED} {means} (torch: {said})",
            user_frame=locate(ctx, cid, calls=calls), explanation=explanation, fix=fix,
            score=SPEC.score(KIND, len(ws)), count=len(ws), compile_ids=(cid,) if cid else (),
            torch_message=w.get("message"), details=CudagraphDetails(SLOWED_GRAPH)))
    return out


def _fn_key(ctx: Any, cid: str | None) -> tuple[Any, Any]:
    """The user function a compile is of (its graphs' recordings are one function's)."""
    row = ctx.code_row(cid) or {}
    return row.get("filename"), row.get("co_name")


def _new_size_call(trees: list[dict[str, Any]], recs: list[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    """The user line of the call that brought the second size (capture's, when it saw one):
    the second tree recorded, else the second recording of a new size."""
    calls = [t["call"] for t in trees if t["key"] is not None and t.get("call")][1:2]
    if not calls:
        seen: list[Any] = []
        for r in recs:
            if r["sizes"] not in seen:
                seen.append(r["sizes"])
                if len(seen) == 2 and r.get("call"):
                    calls = [r["call"]]
    return calls


def _data_dependent(g: dict[str, Any]) -> bool:
    """Whether torch split the graph at a data-dependent op (an unbacked size binding)."""
    return any(found(DATA_DEPENDENT_SPLIT, s.get("reason")) for s in g["splits"])


def _varying(sizes: list[list[list[int]]]) -> list[int]:
    """The positions of the inputs whose size differs between the recordings (the batch):
    the headline shows those, not the parameters' sizes that every recording shares."""
    width = max((len(r) for r in sizes), default=0)
    return [i for i in range(width)
            if len({tuple(r[i]) if i < len(r) else None for r in sizes}) > 1]


def _fmt_sizes(sizes: list[list[int]]) -> str:
    return " ".join("[" + ",".join(map(str, s)) + "]" for s in sizes) or "[]"


def _memory_note(cov: dict[str, Any]) -> str:
    return f"Memory: {cov['memory']}."


# What writes a graph input in place in the post-grad graph: an in-place ATen op (`copy_`,
# `add_`), a user Triton kernel's mutation wrapper, a functionalised custom op.
_MUTATING = re.compile(r"\w_(?:\.\w+)?$|wrapper_mutation|auto_functionalized")


def _mutating_nodes(ctx: Any, cid: str | None) -> list[dict[str, Any]]:
    """The user lines of the nodes that write in place, for a "mutated inputs" skip torch
    gave no `Found from` for (set19/gpu triton_rope_inplace_cg_skip on torch 2.11: an
    in-place Triton RoPE kernel, the skip at the compiled call)."""
    return [{"filename": n["filename"], "lineno": n["lineno"], "line": n.get("line")}
            for n in ctx.graph_nodes(cid) if _MUTATING.search(n.get("target") or "")
            and n.get("filename") and n.get("lineno")]


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    groups: dict[tuple, dict[str, Any]] = {}
    for c in ctx.r.cudagraphs(ctx.run_id):
        if c.get("applied"):
            continue
        # Facts of torch's reason, stored at ingest: its head (without the "Found from"
        # trace), that trace's frames, the ops a partition's reason names.
        head = c.get("head") or (c.get("reason") or "unknown reason").strip()
        nodes: list[dict[str, Any]] = []
        for op in c.get("ops") or []:
            nodes += ctx.op_user_lines(c.get("compile_id"), op)
        if not nodes and "mutated inputs" in head:
            nodes = _mutating_nodes(ctx, c.get("compile_id"))
        frame = locate(ctx, c.get("compile_id"), torch=[c.get("frames") or []], nodes=[nodes])
        g = groups.setdefault((head, frame.filename, frame.lineno),
                              {"rows": [], "frame": frame, "head": head})
        g["rows"].append(c)
    out = []
    for g in groups.values():
        cids = tuple(r["compile_id"] for r in g["rows"] if r.get("compile_id"))
        out.append(Diagnosis(KIND, stage="inductor", compile_id=cids[0] if cids else None,
                             reason=f"CUDA graphs skipped: {g['head']}", user_frame=g["frame"],
                             explanation=EXPLANATION, fix=cudagraph_fix(g["head"]),
                             score=SPEC.score(KIND, len(g["rows"])), count=len(g["rows"]),
                             compile_ids=cids, details=CudagraphDetails(SKIPPED),
                             torch_message=g["rows"][0].get("reason")))
    return out + _coverage_diagnoses(ctx) + _slow_path_diagnoses(ctx) + _kept_outputs(ctx)


KEPT_EXPLANATION = (
    "Under mode='reduce-overhead' each replay writes its outputs into the recorded CUDA "
    "graph's static memory. Outputs of an earlier call are made unreadable (the 'overwritten "
    "by a subsequent run' error) only when torch starts recording again; in steady-state "
    "replays nothing is said, so a tensor kept from an earlier call (appended to a list, "
    "stored in a dict) silently holds a later call's values. Seen at run time: after this "
    "call, outputs an earlier call returned were still alive and shared their memory with "
    "this call's outputs (pytorch#122192).")
KEPT_FIX = (
    "Clone what you keep across calls (`all_logits.append(model(x).clone())`, outside the "
    "compiled function), or reduce it to what you need (`.sum().item()`, `.cpu()`) before the "
    "next call; `torch.compiler.cudagraph_mark_step_begin()` does not keep an old output's "
    "values.")


def _kept_outputs(ctx: Any) -> list[Diagnosis]:
    """Outputs a CUDA-graphed function returned that the program kept across a later replay
    which wrote their memory (capture/kept_outputs.py), at the call that overwrote them."""
    out = []
    for data, call in ctx.recorded_calls("cudagraph_kept_output"):
        cid = data.get("compile_id")
        frame = locate(ctx, cid, calls=[call] if call else [])
        out.append(Diagnosis(
            KIND, stage="runtime", compile_id=cid,
            reason="CUDA-graph outputs kept across calls were silently overwritten: a list "
                   "of the program's held an earlier call's output when call "
                   f"{data.get('at_call')} replayed the graph into the same memory",
            user_frame=frame, explanation=KEPT_EXPLANATION, fix=KEPT_FIX,
            score=SPEC.score(OVERWRITTEN), count=1, compile_ids=(cid,) if cid else (),
            details=CudagraphDetails(OVERWRITTEN)))
    return out


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    """Without CUDA graphs every call pays every kernel's launch; on a CPU program they never
    apply, so the skip costs nothing there."""
    if diagnosis.kind != KIND:
        return None
    gs = timings.graphs_of(diagnosis.compile_ids)
    problem = getattr(diagnosis.details, "problem", SKIPPED)
    if problem == OVERWRITTEN:  # wrong values, not time
        return None
    if problem == RERECORDED_GRAPH:
        # Each recording is a warm-up and a capture (paid once per size, like a compile) and
        # memory kept in the pool; the replays themselves run at full speed.
        return structural("cudagraph_rerecord", 0.05 + 0.1 * (timings.share(gs) if gs else 0),
                          diagnosis, f"{diagnosis.count} CUDA-graph recordings, one per input "
                          "size: each warms up and captures again, and keeps its own memory")
    if problem == SLOWED_GRAPH:
        return structural("cudagraph_slow_path", 0.4 * (timings.share(gs) if gs else 0.2),
                          diagnosis, "calls warm up and record again instead of replaying "
                          "their CUDA graph")
    if problem == PARTITIONED_GRAPH:
        return structural("cudagraph_partitioned", 0.3 * (timings.share(gs) if gs else 0.1),
                          diagnosis, "the ops outside the CUDA-graphed partitions launch one "
                          "by one on every call, between the replays")
    if gs and all(not str(g.get("device") or "").startswith("cuda") for g in gs):
        return structural("cudagraph_skipped", 0.01, diagnosis,
                          "the graph runs on the CPU: CUDA graphs do not apply, so "
                          "mode='reduce-overhead' cannot remove any launch cost here")
    return structural("cudagraph_skipped", 0.5 * (timings.share(gs) if gs else 0.2), diagnosis,
                      "the graph runs without CUDA graphs, paying the launch cost of every "
                      "kernel on every call")
