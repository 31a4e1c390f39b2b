"""Inductor's own perf hints (its perf_hints logger), kind `perf`: an op that runs as an eager
ATen fallback kernel inside a compiled graph, or another slow pattern Inductor named while
compiling; and torch's warning that fp32 matmuls run without TF32 on a GPU that has it.
Fallbacks that share one cause torch warned about for that compile (a dtype Inductor generates
no code for, e.g. complex) are one diagnosis naming the cause, with the ops listed (issue 29
section 2: the cause above its consequences), not one per op.
CUDA-graph skips are the cudagraphs kind's; a library call (cuBLAS, cuDNN, SDPA attention,
NCCL: analyses/library_calls.py) is the fast path, never a fallback. One diagnosis per
(compile, hint)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from compdiag.analyses.unrolled_loops import EXPLANATION as UNROLLED_EXPLANATION
from compdiag.analyses.unrolled_loops import FIX as UNROLLED_FIX
from compdiag.analyses.unrolled_loops import WORDS as UNROLLED_WORDS, unrolled_loops
from compdiag.analyses.cached_compiles import served_from_cache
from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.library_calls import is_library_call
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import locate
from compdiag.analyses.uncompiled import uncompiled
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import Words, first, found
from compdiag.formats.failure_graph import TORCH_NAMESPACES

KIND = "perf"


@dataclass(frozen=True)
class PerfHintDetails(Details):
    internal: ClassVar[tuple[str, ...]] = ("op", "tf32", "heads")
    op: str | None = None  # the ATen op of a fallback hint (the first, for a shared cause)
    tf32: bool = False  # the TF32-off warning
    heads: tuple[str, ...] = ()  # the hints folded under one cause (FALLBACK_CAUSES)


SPEC = KindSpec(KIND, title="perf", words=("perf hint", "perf hints"), style="blue", tie=70,
                costs={"global_setting": Cost(131), "perf": Cost(110),
                       # a compile that cost tens of seconds, every cold start
                       "unrolled": Cost(140)},
                details=(PerfHintDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _unrolled(ctx: Any) -> list[Diagnosis]:
    """A Python loop unrolled into a graph that took long to compile (unrolled_loops.py)."""
    out = []
    for u in unrolled_loops(ctx):
        out.append(Diagnosis(
            KIND, stage="dynamo", compile_id=u["compile_id"], reason=UNROLLED_WORDS.format(**u),
            user_frame=ctx.frame(u["filename"], u["loop"], evidence="fx_node"),
            explanation=UNROLLED_EXPLANATION.format(**u), fix=UNROLLED_FIX,
            score=SPEC.score("unrolled"), details=PerfHintDetails()))
    return out


# Hints that are not a diagnosis: CUDA-graph skips (their own kind) and benign notes.
NOT_A_HINT = ("skipping cudagraphs", "skip comprehensive padding")
# (the words of the hint, the fix), first match wins (analyses/rules.py).
RULES: tuple[tuple[Words, str], ...] = (
    (Words(all=("reduction",), any=("contiguous", "stride")),
     "Reduce over the innermost, contiguous dimension (transpose once beforehand)."),
    (Words(all=("fallback",)),
     "Replace the op with one Inductor lowers, or accept the eager kernel."),
)
FALLBACK_FIX = "Follow the hint, or see the kernels with `{show}`."
FALLBACK_EXPLANATION = ("Inductor has no lowering or decomposition for this op here, so it "
                        "calls the ATen kernel: nothing around it fuses with it and its inputs "
                        "and outputs go through memory.")


# Causes that make Inductor fall back for every op they touch, as torch warns about them once
# per compile (torch/_inductor/lowering.py): (torch's words, the cause, the fix).
FALLBACK_CAUSES: tuple[tuple[str, str, str], ...] = (
    ("does not support code generation for complex operators", "complex dtypes",
     "Keep complex tensors out of the compiled region, or carry the real and imaginary parts "
     "as real tensors (`torch.view_as_real`, or two float tensors) so Inductor can fuse them "
     "into one kernel."),
)


# complex ops with no real-valued form to rewrite them in: FFTs, and the views of them
FFT_OPS = ("_fft_", "fft_")
VIEW_OPS = ("view_as_real", "view_as_complex", "real", "imag")
FFT_FIX = ("Nothing to change: an FFT is complex by nature and runs as ATen's kernel in eager "
           "too; Inductor still fuses the real-valued ops around it. Only if compdiag's perf "
           "report measures these ops as a large part of the graph's time, keep the FFT out of "
           "the compiled region.")


# torch's own words (torch/_inductor/compile_fx.py warns once per process, on a GPU with TF32
# tensor cores, when float32 matmul precision is 'highest').
TF32_MARKERS = ("TensorFloat32 tensor cores for float32 matrix multiplication available but "
                "not enabled",)
TF32_EXPLANATION = (
    "float32 matmuls and convolutions run in full fp32 precision: on this GPU TF32 tensor "
    "cores would run them several times faster (10 mantissa bits instead of 23, the accuracy "
    "most training and inference tolerates). torch warns about it once, on stderr.")
TF32_FIX = ("Call `torch.set_float32_matmul_precision('high')` once at program start, before "
            "compiling (and `torch.backends.cudnn.allow_tf32 = True` for convolutions, the "
            "default); measure it with {perf_try}.")


# One setting speeds up every fp32 matmul of the program: above any count of missed fusions
# and the other perf hints (ranking's `global_setting` class).
TF32_SCORE = SPEC.score("global_setting")
# The post-grad ops a float32 matmul lowers to (what TF32 would speed up).
TF32_OPS = ("mm", "addmm", "bmm", "baddbmm")


def perf_hint_fix(msg: str) -> str:
    return first(RULES, msg, default=FALLBACK_FIX)


# The op a fallback hint names: `torch.ops.mylib.op.default` (its namespace is group 1), or
# a name without `torch.ops.` (`_c10d_functional.all_reduce_.default`)
_FALLBACK_NAME = re.compile(r"Using FallbackKernel:\s*(?:torch\.ops\.)?(([\w]+)[\w.]*)")


def custom_op_fallback(head: str | None) -> bool:
    """Whether a fallback hint is about a custom op (`torch.ops.mylib.op`): Inductor never
    generates code for one, it runs the op's own kernel; the hint says nothing to change."""
    m = _FALLBACK_NAME.search(head or "")
    return bool(m) and "torch.ops." in m.group(0) and m.group(2) not in TORCH_NAMESPACES


# A fallback hint for a collective or its wait: Inductor lowers them to c10d's own kernels on
# purpose (torch/_inductor/comm_lowering.py) and warns "Using FallbackKernel" for each
# (probes40d tp_mlp_dtensor_ok, a correct DTensor MLP: `all_reduce_` and `wait_tensor` were two
# problems with "replace the op with one Inductor lowers", where there is none).
def collective_fallback(head: str | None) -> bool:
    """Whether a fallback hint names a library kernel by design (a collective, its wait)."""
    m = _FALLBACK_NAME.search(head or "")
    return bool(m) and is_library_call(m.group(1))


# A fallback limiter `compdiag perf` put at least this high (share of the compiled graphs'
# measured time the op's graphs spend, by the fallbacks' part of their kernels) makes the
# fallback a problem; below it, or with no perf report, a fallback is information.
MEASURED_FALLBACK = 0.10
FALLBACK_INFO_FIX = ("Nothing to change: Inductor generates no code for aten.{op} on this "
                     "device (sorts, scans, random draws, linear algebra and data-dependent "
                     "ops run as ATen's own kernel, as in eager). Only if {perf} shows this "
                     "graph's time going there, express it with ops Inductor generates code "
                     "for, or move it out of the compiled region.")


def measured_fallbacks(report: dict[str, Any] | None) -> set[tuple[str, str]]:
    """(compile id, op) pairs a perf report costed at MEASURED_FALLBACK or more."""
    out: set[tuple[str, str]] = set()
    for lim in (report or {}).get("limiters") or []:
        if not (isinstance(lim, dict) and lim.get("kind") == "fallback"
                and (lim.get("impact") or 0) >= MEASURED_FALLBACK):
            continue
        m = re.search(r"\baten\.(\w+)", lim.get("reason") or "")
        if m:
            out.update((cid, m.group(1)) for cid in lim.get("compile_ids") or [])
    return out


# Fallback ops whose work an op Inductor generates code for does as well: a problem whatever
# perf measured, with that op as the fix (probes38g readout_segment_reduce_max: the fallback
# was ~80% of the graph's time, 14.8 ms a call against 2.66 ms with an index_reduce_ readout).
REPLACEABLE = {
    "segment_reduce": (
        "aten.segment_reduce has no Inductor lowering and runs as ATen's kernel between the "
        "compiled ones. Reduce over a segment index instead, which Inductor compiles: `seg = "
        "torch.arange(len(lengths)).repeat_interleave(lengths)` once, then `out = "
        "x.new_full((len(lengths), x.shape[1]), float('-inf')).scatter_reduce(0, "
        "seg[:, None].expand_as(x), x, 'amax', include_self=False)` (or `index_reduce_`; "
        "'sum' and 'mean' alike)."),
}


def _as_benign(ctx: Any, d: Diagnosis, measured: set[tuple[str, str]]) -> Diagnosis:
    """A single op's fallback is what Inductor does by design on this device (issue 29 §2:
    benign never outranks real; probes30a sampler_settings_ok: topk and multinomial in a
    correct sampler were two problems): information, unless perf measured it costly."""
    op = d.details.op
    if op in REPLACEABLE:
        return replace(d, fix=REPLACEABLE[op])
    if any((c, op) in measured for c in (d.compile_ids or (d.compile_id,))):
        return d
    return replace(d, severity="info", score=SPEC.score("info"),
                   fix=FALLBACK_INFO_FIX.format(op=op, perf=ctx.perf_command()))


def fallback_fix(op: str) -> str:
    return (f"aten.{op} has no Inductor lowering on this device: if it sits in a hot loop, "
            f"express it with ops Inductor generates code for (pointwise/reduction "
            f"equivalents), move it outside the compiled region, or accept the extra kernel; "
            f"`torch._inductor.config.implicit_fallbacks` controls whether this is allowed.")


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for hint in ctx.r.perf_hints(ctx.run_id):
        if found(NOT_A_HINT, hint["message"]):
            continue
        groups.setdefault((hint["compile_id"], hint["head"]), []).append(hint)
    out = _tf32(ctx) + _cached_fallbacks(ctx, groups) + _unrolled(ctx) + uncompiled(
        ctx, KIND, SPEC.score(KIND), PerfHintDetails()) + _eager_paths(ctx)
    caused = _caused_fallbacks(ctx, groups)
    out += caused
    folded = {(d.compile_id, head) for d in caused for head in d.details.heads}
    for (cid, head), hints in groups.items():
        if (cid, head) in folded:
            continue
        h = hints[0]
        op = h["fallback_op"]
        if op and is_library_call(f"aten.{op}"):
            continue  # cuBLAS/cuDNN/SDPA/NCCL: the fast path, not a gap to fix
        if custom_op_fallback(head):
            continue  # the program's own op runs as its own kernel by design: nothing to fix
        if collective_fallback(head):
            continue  # a collective and its wait run as c10d's kernels by design
        if op:
            d = Diagnosis(KIND, stage="inductor_lowering", compile_id=cid,
                          reason=f"aten.{op} runs as an eager fallback kernel (Inductor perf "
                                 f"hint: {head})",
                          user_frame=locate(ctx, cid, torch=[h["frames"]],
                                            nodes=[ctx.op_user_lines(cid, op)]),
                          explanation=FALLBACK_EXPLANATION, fix=fallback_fix(op),
                          score=SPEC.score(KIND), count=len(hints), details=PerfHintDetails(op),
                          torch_message=h["message"])
        else:
            # a hint no rule has a change for ("possibly bad tiling"): Inductor's heuristic
            # note, information (set23/gpu amp_fp16_gradscaler_train: a correct step's top)
            known = perf_hint_fix(h["message"]) != FALLBACK_FIX
            d = Diagnosis(KIND, stage="inductor", compile_id=cid,
                          reason=f"Inductor perf hint: {head}",
                          user_frame=locate(ctx, cid, torch=[h["frames"]]),
                          explanation="Inductor reported a known slow pattern while compiling.",
                          fix=perf_hint_fix(h["message"]).replace("{show}",
                                                                  ctx.run_command("show")),
                          score=SPEC.score(KIND if known else "info"), count=len(hints),
                          severity="problem" if known else "info",
                          details=PerfHintDetails(), torch_message=h["message"])
        out.append(d)
    # (a cause torch warned about, its ops listed in `heads`, stays a problem)
    measured = measured_fallbacks(ctx.r.perf_report(ctx.run_id))
    return [d if d.details.heads or not d.details.op else _as_benign(ctx, d, measured)
            for d in _one_per_op_and_line(out)]


def _one_per_op_and_line(found: list[Diagnosis]) -> list[Diagnosis]:
    """One fallback diagnosis per op at one user line, over every compile that had it: a
    function compiled again (a new shape, a recompile) lowers the same op to the same fallback
    (probes28a embbag_ctr_ok: `_embedding_bag_backward` reported once per compile, twice)."""
    out: list[Diagnosis] = []
    seen: dict[tuple, int] = {}
    for d in found:
        f = d.user_frame
        key = (d.details.op, f.filename, f.lineno) if getattr(d.details, "op", None) else None
        if key is None or key not in seen:
            if key is not None:
                seen[key] = len(out)
            out.append(d)
            continue
        kept = out[seen[key]]
        cids = tuple(dict.fromkeys((*(kept.compile_ids or (kept.compile_id,)),
                                    *(d.compile_ids or (d.compile_id,)))))
        out[seen[key]] = replace(kept, count=kept.count + d.count,
                                 compile_ids=tuple(c for c in cids if c))
    return out


def _cached_fallbacks(ctx: Any, groups: dict[tuple, list[dict[str, Any]]]) -> list[Diagnosis]:
    """The eager fallbacks of a compile served from an FX graph cache entry this store never
    saw made (analyses/cached_compiles.py): Inductor lowered nothing, so it logged no perf
    hint, but the cached output code the trace carries still calls each fallback op
    (fallback_calls). One diagnosis per op, as its hint would have made."""
    hinted = {c for c, _ in groups}
    out = []
    for hit in served_from_cache(ctx):
        cid = hit["compile_id"]
        if hit["origin"] is not None or cid is None or cid in hinted:
            continue
        hinted.add(cid)  # once per compile: its forward and backward are two cache hits
        # (probes27 parametrize_ok: one fallback reported twice)
        for call in ctx.r.fallback_calls(ctx.run_id, cid):
            if is_library_call(call):
                continue
            op = call.split(".", 1)[-1]
            out.append(Diagnosis(
                KIND, stage="inductor_lowering", compile_id=cid,
                reason=f"aten.{op} runs as an eager fallback kernel (the cached output code "
                       f"calls {call}; served from the FX graph cache, so no perf hint)",
                user_frame=locate(ctx, cid, nodes=[ctx.op_user_lines(cid, op)]),
                explanation=FALLBACK_EXPLANATION, fix=fallback_fix(op),
                score=SPEC.score(KIND), details=PerfHintDetails(op)))
    return out


def _caused_fallbacks(ctx: Any, groups: dict[tuple, list[dict[str, Any]]]
                      ) -> list[Diagnosis]:
    """One diagnosis per (compile, cause) for the fallback hints of a compile for which torch
    warned about a cause that makes Inductor fall back (FALLBACK_CAUSES), with the ops."""
    out = []
    for words, cause, fix in FALLBACK_CAUSES:
        warned = [w for w in ctx.r.torch_warnings(ctx.run_id) if words in (w.get("message") or "")]
        for cid in dict.fromkeys(w.get("compile_id") for w in warned):
            heads = [(head, hints) for (c, head), hints in groups.items()
                     if c == cid and hints[0]["fallback_op"]
                     and not is_library_call(f"aten.{hints[0]['fallback_op']}")]
            if not heads:
                continue
            ops = list(dict.fromkeys(h[0]["fallback_op"] for _, h in heads))
            frames = [f for _, h in heads for f in (h[0]["frames"] or [])]
            nodes = [f for op in ops for f in ctx.op_user_lines(cid, op)]
            message = next(w["message"] for w in warned if w.get("compile_id") == cid)
            # FFTs alone: complex by nature, ATen's kernel in eager too (probes41h
            # audio_peak_normalize_clamp_ok, a correct rfft: a problem from a cold cache,
            # with a view_as_real fix view_as_real itself is listed under)
            fft = any(op.startswith(FFT_OPS) for op in ops) and all(
                op.startswith(FFT_OPS) or op in VIEW_OPS for op in ops)
            out.append(Diagnosis(
                KIND, stage="inductor_lowering", compile_id=cid,
                reason=f"{len(ops)} ops run as eager fallback kernels because of {cause} "
                       f"(torch: {message.strip()}): " + ", ".join(f"aten.{op}" for op in ops),
                user_frame=locate(ctx, cid, torch=[frames[:1]], nodes=[nodes[:1]]),
                explanation=f"Inductor generates no code for {cause}, so every op on them "
                            f"calls its ATen kernel: nothing around those ops fuses with them and "
                            f"their inputs and outputs go through memory.",
                fix=FFT_FIX if fft else fix, score=SPEC.score("info" if fft else KIND),
                severity="info" if fft else "problem", count=sum(len(h) for _, h in heads),
                details=PerfHintDetails(ops[0], heads=tuple(head for head, _ in heads)),
                torch_message=message))
    return out


# torch's warning that an API it compiles into a fused kernel ran its slow eager path, by the
# words torch uses: what runs, the fix, the graph target of its compiled form (probes37d
# flex_regional_eager_attn: a block's submodules compiled one by one, its flex_attention call
# left in eager; said as a skipped frame, with no word of the warning torch printed at the call)
EAGER_PATHS: tuple[tuple[str, str, str, str], ...] = (
    ("flex_attention called without torch.compile()",
     "flex_attention runs uncompiled: its unfused implementation materialises the whole "
     "scores matrix",
     "Compile the code that calls flex_attention (the module whose forward calls it, "
     "`block.compile()`, or the whole model), not only the layers around it; or call it "
     "through `torch.compile(flex_attention)`.", "flex_attention"),
)


def _eager_paths(ctx: Any) -> list[Diagnosis]:
    """One diagnosis per EAGER_PATHS warning torch gave, at the user's call it names."""
    out, said = [], set()
    for w in ctx.r.torch_warnings(ctx.run_id):
        rule = next((r for r in EAGER_PATHS if r[0] in (w.get("message") or "")), None)
        call = w.get("call") if isinstance(w.get("call"), dict) else {}
        if rule is None or rule[0] in said:
            continue
        said.add(rule[0])
        # the program runs it compiled too: the uncompiled call is a reference (an eager
        # comparison in the same script), information
        also = any(rule[3] in str(n.get("target") or n.get("call") or "")
                   for cid in ctx.compiles
                   for n in [*ctx.every_graph_nodes(cid), *ctx.dynamo_nodes(cid)])
        out.append(Diagnosis(
            KIND, stage=None, compile_id=w.get("compile_id"),
            reason=f"{rule[1]} (torch: {rule[0]})",
            user_frame=ctx.frame(call.get("filename"), call.get("lineno"),
                                 call.get("line"), evidence="torch")
            if call.get("lineno") else locate(ctx, None),
            explanation=(w.get("message") or "").split("\n\n")[0],
            fix=rule[2], score=SPEC.score("info") if also else SPEC.score(KIND),
            severity="info" if also else "problem", torch_message=w.get("message"),
            details=PerfHintDetails()))
    return out


def _tf32(ctx: Any) -> list[Diagnosis]:
    warned = [w for w in ctx.r.torch_warnings(ctx.run_id)
              if found(TF32_MARKERS, w.get("message"))]
    if not warned:
        return []
    w = warned[0]
    cid = w.get("compile_id")
    # The warning is about float32 matmuls: the user lines of those nodes (issue 29 §1,
    # evidence 2), before the compiled function's def.
    matmuls = [{"filename": n["filename"], "lineno": n["lineno"], "line": n["line"]}
               for n in ctx.graph_nodes(cid)
               if n.get("op") in TF32_OPS and str(n.get("meta") or "").startswith("f32")
               and n.get("filename") and n.get("lineno")]
    return [Diagnosis(KIND, stage="inductor", compile_id=cid,
                      reason="fp32 matmuls run without TF32 tensor cores (torch: "
                             f"{TF32_MARKERS[0]})",
                      user_frame=locate(ctx, cid, nodes=[matmuls[:1]]),
                      explanation=TF32_EXPLANATION,
                      fix=TF32_FIX.format(perf_try=ctx.perf_try_command()),
                      score=TF32_SCORE, count=len(warned),
                      # a precision trade-off torch suggests for every fp32 program on the
                      # GPU, not a fault of this one: said, measured by `perf --try`, and
                      # never what makes a correct program a problem (set34/gpu's two
                      # correct programs were "1 problem" by it, and only when the FX
                      # cache missed, since a cached compile does not warn)
                      severity="info",
                      torch_message=w.get("message"),
                      compile_ids=(cid,) if cid else (), details=PerfHintDetails(tf32=True))]


def tf32_impact(timings: Any) -> float:
    """Half of the time of the graphs that call a matmul or convolution library kernel (TF32
    runs those 2-8x faster on Ampere and later; the rest of the graph is unchanged)."""
    gs = [g for g in timings.timed if any(is_library_call(c) and ("mm" in c or "conv" in c)
                                          for c in g.get("library_calls") or [])]
    return max(0.05, 0.5 * timings.share(gs)) if gs else 0.05


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    if diagnosis.kind == KIND and diagnosis.details.tf32:
        return structural("tf32_off", tf32_impact(timings), diagnosis,
                          "torch warned that TF32 is available but off; the graphs' matmuls "
                          "and convolutions run in full fp32")
    if diagnosis.kind != KIND or not diagnosis.details.op:
        return None
    op = diagnosis.details.op
    cids = diagnosis.compile_ids
    return structural("fallback", timings.fallback_impact(timings.graphs_of(cids)), diagnosis,
                      f"aten.{op} runs as an ATen fallback kernel inside compiled graph "
                      f"{', '.join(cids) or '?'}", op=op)
