"""Inductor's own perf hints (its perf_hints logger), kind `perf`: an op that runs as an eager
ATen fallback kernel inside a compiled graph, or another slow pattern Inductor named while
compiling. CUDA-graph skips are the cudagraphs kind's. One diagnosis per (compile, hint)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.ranking import score

KIND = "perf"


@dataclass(frozen=True)
class PerfHintDetails(Details):
    internal: ClassVar[tuple[str, ...]] = ("op",)
    op: str | None = None  # the ATen op of a fallback hint


# Hints that are not a diagnosis: CUDA-graph skips (their own kind) and benign notes.
NOT_A_HINT = ("skipping cudagraphs", "skip comprehensive padding")
# (words all in the hint, words one of which is, the fix), first match wins.
RULES: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (("reduction",), ("contiguous", "stride"), "Reduce over the innermost, contiguous dimension "
     "(transpose once beforehand)."),
    (("fallback",), (), "Replace the op with one Inductor lowers, or accept the eager kernel."),
)
FALLBACK_FIX = "Follow the hint, or see the kernels with `compdiag show`."
FALLBACK_EXPLANATION = ("Inductor has no lowering or decomposition for this op here, so it "
                        "calls the ATen kernel: nothing around it fuses with it and its inputs "
                        "and outputs go through memory.")


def perf_hint_fix(msg: str) -> str:
    low = msg.lower()
    return next((fix for all_of, any_of, fix in RULES if all(w in low for w in all_of)
                 and (not any_of or any(w in low for w in any_of))), FALLBACK_FIX)


def fallback_fix(op: str) -> str:
    return (f"aten.{op} has no Inductor lowering on this device: if it sits in a hot loop, "
            f"express it with ops Inductor generates code for (pointwise/reduction "
            f"equivalents), move it outside the compiled region, or accept the extra kernel; "
            f"`torch._inductor.config.implicit_fallbacks` controls whether this is allowed.")


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for hint in ctx.r.perf_hints(ctx.run_id):
        low = hint["message"].lower()
        if any(b in low for b in NOT_A_HINT):
            continue
        groups.setdefault((hint["compile_id"], hint["head"]), []).append(hint)
    out = []
    for (cid, head), hints in groups.items():
        h = hints[0]
        op = h["fallback_op"]
        if op:
            d = Diagnosis(KIND, stage="inductor_lowering", compile_id=cid,
                          reason=f"aten.{op} runs as an eager fallback kernel (Inductor perf "
                                 f"hint: {head})",
                          user_frame=ctx.user_frame(h["frames"] or ctx.op_user_lines(cid, op),
                                                    cid=cid),
                          explanation=FALLBACK_EXPLANATION, fix=fallback_fix(op),
                          score=score(KIND), count=len(hints), details=PerfHintDetails(op),
                          torch_message=h["message"])
        else:
            d = Diagnosis(KIND, stage="inductor", compile_id=cid,
                          reason=f"Inductor perf hint: {head}",
                          user_frame=ctx.user_frame(h["frames"], cid=cid),
                          explanation="Inductor reported a known slow pattern while compiling.",
                          fix=perf_hint_fix(h["message"]), score=score(KIND), count=len(hints),
                          details=PerfHintDetails(), torch_message=h["message"])
        out.append(d)
    return out


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    if diagnosis.kind != KIND or not diagnosis.details.op:
        return None
    op = diagnosis.details.op
    cids = diagnosis.compile_ids
    return structural("fallback", timings.fallback_impact(timings.graphs_of(cids)), diagnosis,
                      f"aten.{op} runs as an ATen fallback kernel inside compiled graph "
                      f"{', '.join(cids) or '?'}", op=op)
