"""Missed fusions: pairs of kernels Inductor's scheduler refused to fuse for a reason worth
acting on, at the user lines of the two scheduler nodes (their FX origins' stack traces, from
the fusion logger's candidate lists), with the change that lets them fuse; and missed epilogue
fusions: a library matmul/convolution (cuBLAS, cuDNN) whose output a separate Triton pointwise
kernel reads next (from the output code), which a Triton template could have fused.

'no shared data' is benign (nothing to fuse) and never a diagnosis. The refusals Inductor
makes on purpose to protect the schedule ("will create cycle", nodes "too far away", the
peak-memory and score thresholds; a read of other positions than were written, which makes
the fusion illegal: REASON_CLASSES' benign column) are information, not
problems, unless a `compdiag perf` report of the run measured a fusion limiter on that graph. One diagnosis per
(compile, reason class); cost: the `fusion` class plus the count (capped)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import Words, first, one_of
from compdiag.formats.words import plural
from compdiag.ingest.parsers import scheduler_node_names, user_line_frame

KIND = "fusion"


@dataclass(frozen=True)
class FusionDetails(Details):
    pairs: tuple[tuple[str, str, str], ...]
    reason_class: str


SPEC = KindSpec(KIND, title="missed fusion", words=("missed fusion", "missed fusions"),
                style="blue", tie=60, costs={"fusion": Cost(100, per_event=1.0, cap=30)},
                details=(FusionDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


# The one table that decides a cannot-fuse reason: its class and whether it is benign, first
# match wins (analyses/rules.py). Benign: a refusal Inductor makes on purpose to protect the
# schedule, whatever words torch uses for it (a cycle, "intermediate nodes between node1 &
# node2" included; nodes too far apart; peak memory and the fusion-score thresholds; too many
# reads and writes; register spilling): information unless `compdiag perf` measured this
# graph's fusions to matter. Class None: nothing to fuse (no shared data), never a diagnosis.
REASON_CLASSES: tuple[tuple[Words, tuple[str | None, bool]], ...] = (
    (one_of("no shared data"), (None, True)),
    (one_of("will create cycle", "would create a cycle", "create a cycle",
            "intermediate nodes between"), ("cycle", True)),
    (one_of("too far", "far apart"), ("distance", True)),
    (one_of("memory threshold", "memory_threshold", "increase peak memory", "peak memory"),
     ("peak_memory", True)),
    (one_of("too_many_reads_and_writes", "too many reads and writes", "register spilling"),
     ("peak_memory", True)),
    # A legality check, not a choice: the consumer reads the producer's buffer at other
    # positions than each iteration writes (x + 1, a gather, a mutation's star dep).
    (one_of("memory deps did not match"), ("other_positions", True)),
    # A limit of Inductor's code generator, not a choice to revisit: "prologue fusion only
    # supported for pointwise nodes" (a template's prologue), "prologue fusion not implemented
    # for kernel for these inputs", "... not supported", "template prologue can only fuse
    # nodes with a single use into template" (set26/gpu bf16_accum_autotune_ok under
    # max-autotune: a problem on a correct program).
    # "template epilogue not satisfied": the consumer is a reduction or mutates a buffer, or
    # the template takes no epilogue (set28/gpu autotune_small_gemm_sdpa_ok, max-autotune)
    (one_of("only supported for", "not supported", "not implemented", "can only fuse",
            "epilogue not satisfied"), ("unsupported", True)),
    (one_of("exceeds max fusion", "fusion size", "too many"), ("size_limit", False)),
    # a score: the prologue would not cut the template's reads (set28/gpu
    # autotune_small_gemm_sdpa_ok under max-autotune: a problem on a correct program)
    (one_of("will not increase amount of bytes", "will not reduce"), ("no_benefit", True)),
    (one_of("template", "epilogue", "prologue"), ("template", False)),
    # Loops of other iteration spaces cannot share a kernel: legality, not a choice
    # (set23/gpu amp_fp16_gradscaler_train: a problem on a correct training step).
    (one_of("numel", "rnumel", "different ranges", "shape"), ("mismatched_ranges", True)),
    (one_of("memory", "score", "benefit"), ("no_benefit", True)),
    (one_of("loop order", "stride", "indexing"), ("layout", False)),
    (one_of("config", "disabled"), ("config", False)),
    (one_of("intermediate", "dependency", "cycle"), ("dependency", False)),
)
# A measured fusion limiter at least this large (share of the run) makes a benign refusal a
# problem.
MEASURED_IMPACT = 0.02
# The fix of every refusal Inductor makes on purpose (REASON_CLASSES' benign column).
UNLESS_MEASURED = ("Nothing to change unless {perf} measures this graph's fusions to matter.")
# The same refusal's fix in `compdiag perf`'s table, which has measured it.
PERF_BENIGN_FIX = ("Nothing to change unless its impact matters: the scheduler refuses this "
                   "fusion on purpose, and the impact is the most that forcing it could save.")
# class -> (title, explanation, fix)
FIXES: dict[str, tuple[str, str, str]] = {
    "cycle": ("fusion would create a cycle", "Fusing would make a kernel depend on itself "
              "through another kernel; Inductor refuses it by design.",
              UNLESS_MEASURED),
    "distance": ("nodes too far apart to fuse", "Inductor does not fuse nodes far apart in the "
                 "schedule, to keep peak memory down.", UNLESS_MEASURED),
    "peak_memory": ("fusion refused to save peak memory", "Inductor judged that the fusion "
                    "would raise peak memory or save too little traffic.", UNLESS_MEASURED),
    "other_positions": ("reads other positions than were written", "The second kernel "
                        "reads the first one's output at other positions than each iteration "
                        "writes (a shifted, gathered or indirect read, or a buffer mutated in "
                        "place), so the two loops cannot run as one.", UNLESS_MEASURED),
    "unsupported": ("fusion not supported for these kernels", "Inductor's code generator "
                    "cannot fuse these two kinds of kernels (a matmul/conv template's prologue "
                    "takes only pointwise nodes): a limit of the generator, not a choice.",
                    UNLESS_MEASURED),
    "size_limit": ("fusion capped by size",
                   "Inductor stopped fusing because the fused kernel would exceed "
                   "max_fusion_size.",
                   "Raise torch._inductor.config.max_fusion_size if the kernel is memory-bound, "
                   "or split the work so fewer ops chain together."),
    "template": ("template/epilogue not fused",
                 "A matmul/conv template's epilogue was not fused.",
                 "Try mode='max-autotune' (Triton templates with epilogue fusion) or make the "
                 "epilogue a pointwise op on the template output."),
    "mismatched_ranges": ("loops of different shapes",
                          "The two kernels iterate over different ranges (e.g. a reduction and "
                          "a pointwise op over another shape), so they run as separate loops "
                          "and the intermediate goes through memory.",
                          "Reorder or reshape so both work over the same iteration space (e.g. "
                          "keep the reduction dim last, use keepdim=True so the broadcast is a "
                          "view), or accept the extra kernel."),
    "no_benefit": ("fusion judged unprofitable", "Inductor scored the fusion as saving no "
                   "memory traffic.", UNLESS_MEASURED),
    "layout": ("incompatible loop orders", "The nodes read/write with layouts that need "
               "different loop orders.", "Make the layouts agree: .contiguous() once, or avoid "
               "transposes between the ops; torch._inductor.config.loop_ordering_after_fusion "
               "can help."),
    "config": ("fusion disabled by config", "An Inductor config disabled this fusion.",
               "Check torch._inductor.config (e.g. epilogue_fusion, aggressive_fusion)."),
    "dependency": ("fusion would create a cycle", "Fusing would create a dependency cycle "
                   "through another kernel.", "Usually inherent to the graph; reorder ops so "
                   "the intermediate is produced before the other consumer."),
}
# How much a refused fusion plausibly costs a timed run, by class: a fusion the scheduler
# judged unprofitable (peak memory, score) was refused on purpose.
WEIGHT = {"cycle": 0.05, "distance": 0.05, "peak_memory": 0.05, "other_positions": 0.05,
          "unsupported": 0.05,
          "epilogue": 0.3,
          "no_benefit": 0.1, "dependency": 0.2, "mismatched_ranges": 0.3, "template": 0.4,
          "layout": 0.4, "size_limit": 0.5, "config": 0.5}


EPILOGUE = (
    "missed epilogue fusion",
    "The matmul/convolution runs as a library kernel (cuBLAS/cuDNN), which cannot take the "
    "pointwise work after it: that work is a separate Triton kernel that reads the whole "
    "product back from memory and writes it again.",
    "Compile with mode='max-autotune' (or set `torch._inductor.config.max_autotune_gemm = "
    "True`): Inductor then benchmarks Triton matmul/conv templates, which fuse this pointwise "
    "work into their epilogue when they win. Measure it with {perf_try}.")


def fusion_reason_class(reason: str) -> str | None:
    """Which cannot-fuse reasons are worth a diagnosis (None: nothing to fuse, e.g. no
    shared data)."""
    return first(REASON_CLASSES, reason, default=(None, False))[0]


def benign(reason: str) -> bool:
    """Inductor refused it on purpose to protect the schedule (REASON_CLASSES says)."""
    return first(REASON_CLASSES, reason, default=(None, False))[1]


def benign_class(cls: str | None) -> bool:
    """Whether REASON_CLASSES' benign column holds for a class (one value per class)."""
    return any(c == cls and ok for _, (c, ok) in REASON_CLASSES)


def fusion_fix(cls: str, reason: str) -> tuple[str, str, str]:
    """(title, explanation, fix) for a class of missed fusions."""
    return FIXES.get(cls, ("missed fusion", reason, "See `{show}` for the kernels."))


def node_frames(nodes: dict[str, dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The user frames of a scheduler node, or of each node a fused node's name joins."""
    out: list[dict[str, Any]] = []
    for part in scheduler_node_names(name):
        out += (nodes.get(part) or {}).get("frames") or []
    return out


def measured_fusion_graphs(report: dict[str, Any] | None) -> set[str]:
    """Compile ids a perf report measured a fusion limiter of at least MEASURED_IMPACT on."""
    out: set[str] = set()
    for lim in (report or {}).get("limiters") or []:
        if (isinstance(lim, dict) and lim.get("kind") == "fusion_miss"
                and lim.get("basis") == "measured"
                and (lim.get("impact") or 0) >= MEASURED_IMPACT):
            out.update(lim.get("compile_ids") or [])
    return out


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    measured = measured_fusion_graphs(ctx.r.perf_report(ctx.run_id))
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for f in ctx.r.fusion(ctx.run_id):
        if f.get("fused") or not f.get("reason"):
            continue
        cls = fusion_reason_class(f["reason"])
        if cls is not None:
            groups.setdefault((f.get("compile_id"), cls), []).append(f)
    epilogue = _epilogue_misses(ctx, measured)
    # The scheduler's own "template/epilogue" refusal in a compile whose output code shows the
    # missed epilogue is the same finding: keep the one that names the kernels and the line.
    with_epilogue = {d.compile_id for d in epilogue}
    out = []
    for (cid, cls), rows in groups.items():
        if cls == "template" and cid in with_epilogue:
            continue
        first = rows[0]
        nodes = ctx.r.sched_nodes(ctx.run_id, cid)
        # Each origin's trace is one candidate, the first node's before the second's.
        frames = node_frames(nodes, first["node1"]) + node_frames(nodes, first["node2"])
        title, expl, fix = fusion_fix(cls, first["reason"])
        info = benign(first["reason"]) and cid not in measured
        out.append(Diagnosis(
            KIND, stage="inductor_scheduling", compile_id=cid,
            reason=f"{title}: cannot fuse {first['node1']} with {first['node2']}: "
                   f"{first['reason']}",
            user_frame=locate(ctx, cid, nodes=frames), explanation=expl,
            fix=fix.format(perf=ctx.perf_command(), show=ctx.run_command("show")),
            score=SPEC.score("info" if info else KIND, len(rows)), count=len(rows),
            severity="info" if info else "problem",
            torch_message="\n".join(f"cannot fuse {r['node1']} with {r['node2']}: {r['reason']}"
                                    for r in rows[:10]),
            details=FusionDetails(pairs=tuple((r["node1"], r["node2"], r["reason"])
                                              for r in rows[:10]), reason_class=cls)))
    return out + epilogue


def _epilogue_misses(ctx: Any, measured: set[str]) -> list[Diagnosis]:
    """One diagnosis per compile whose wrapper feeds a library mm/conv's output to a separate
    pointwise kernel, at that kernel's first user line (the op right after the matmul).
    Information unless a perf report measured that graph's fusions to matter: default mode
    calls cuBLAS/cuDNN by design (set23/gpu: a correct AMP training step and a CUDA-graph
    server each had it as their top problem, and it outranked a real recompile)."""
    by_cid: dict[str | None, list[dict[str, Any]]] = {}
    for m in ctx.r.epilogue_misses(ctx.run_id):
        by_cid.setdefault(m.get("compile_id"), []).append(m)
    out = []
    for cid, rows in by_cid.items():
        lines = {k["name"]: k.get("user_lines") or []
                 for k in ctx.r.kernels(ctx.run_id, cid, with_source=False)}
        frames = [f for r in rows for f in map(user_line_frame, lines.get(r["kernel"]) or [])
                  if f]
        first = rows[0]
        title, expl, fix = EPILOGUE
        more = f" ({len(rows)} such pairs)" if len(rows) > 1 else ""
        out.append(Diagnosis(
            KIND, stage="inductor_scheduling", compile_id=cid,
            reason=f"{title}: {first['op']} ({first['buffer']}) is followed by a separate "
                   f"pointwise kernel {first['kernel']}{more}",
            user_frame=locate(ctx, cid, nodes=[frames]), explanation=expl,
            fix=fix.format(perf_try=ctx.perf_try_command()),
            score=SPEC.score(KIND if cid in measured else "info", len(rows)), count=len(rows),
            severity="problem" if cid in measured else "info",
            details=FusionDetails(pairs=tuple((r["op"], r["kernel"], "epilogue")
                                              for r in rows[:10]), reason_class="epilogue")))
    return out


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    if diagnosis.kind != KIND:
        return None
    gs = timings.graphs_of(diagnosis.compile_ids)
    n = diagnosis.count
    kern = sum(sum(g["kernels"].values()) for g in gs) or 1
    impact = (timings.share(gs) * WEIGHT.get(diagnosis.details.reason_class, 0.3)
              * min(1.0, n / (kern + n)))
    lim = structural("fusion_miss", impact, diagnosis,
                     f"{plural(n, 'fusion decision')} refused by the scheduler in a graph "
                     f"with {plural(kern, 'kernel')}")
    # in perf's own table the measuring is done: its fix names no perf command (probes39c:
    # "Nothing to change unless `compdiag perf ...` measures ...", printed by that command)
    cls = diagnosis.details.reason_class
    return replace(lim, fix=PERF_BENIGN_FIX) if benign_class(cls) else lim
