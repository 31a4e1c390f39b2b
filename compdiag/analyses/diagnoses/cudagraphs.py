"""CUDA graphs skipped under mode='reduce-overhead': the reason torch gave, the user line it
points at (its 'Found from' frames, or the op a partition left out), and how to make the graph
capturable. One diagnosis per (reason, line); cost: the `cudagraph` band plus the count."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.limiter import Limiter, structural
from compdiag.analyses.ranking import score
from compdiag.formats.user_code import frames_in

KIND = "cudagraph"

# (words in torch's reason, the fix), first match wins.
RULES: tuple[tuple[str, str], ...] = (
    ("mutated inputs", "An input is mutated in place inside the graph: return a new tensor "
     "instead of mutating the argument (or mutate only buffers), so the graph can be replayed."),
    ("unbacked binding", "An op with a data-dependent output (nonzero, item, unique...) "
     "splits the graph: that partition runs without CUDA graphs. Keep shapes static (a mask "
     "with torch.where instead of nonzero) or move the op out of the compiled region."),
    ("cpu ops", "A CPU op sits in the graph, so its partition runs without CUDA graphs: "
     "move the tensor it uses to CUDA (`.cuda()` once, outside the loop)."),
    ("cpu device", "A CPU tensor is part of the graph: move every input and constant to CUDA "
     "(or keep CPU scalars as Python numbers)."),
    ("non-cuda", "A non-CUDA input reached the graph: move every input to the GPU."),
    ("dynamic shape", "Input sizes vary: pad to a few fixed sizes, or mark the dimension "
     "static; each distinct size records its own graph."),
    ("incompatible op", "An op that cannot be captured (CPU sync, data-dependent output, "
     "RNG/collective) is in the graph: move it outside the compiled region or replace it."),
    ("complex", "Complex tensors are not supported by CUDA graphs: keep them outside."),
    ("deterministic", "torch.use_deterministic_algorithms is incompatible with this op under "
     "CUDA graphs."),
)
FALLBACK_FIX = ("Remove what the reason names from the compiled region, or compile this "
                "function without mode='reduce-overhead'.")
EXPLANATION = ("mode='reduce-overhead' records the compiled graph as a CUDA graph; this graph "
               "could not be recorded and runs without it, paying the kernel-launch overhead "
               "on every call.")
_CG_OP = re.compile(r"\baten\.(\w+)\.\w+\(")


def cudagraph_fix(reason: str) -> str:
    low = reason.lower()
    return next((fix for key, fix in RULES if key in low), FALLBACK_FIX)


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    groups: dict[tuple, dict[str, Any]] = {}
    for c in ctx.r.cudagraphs(ctx.run_id):
        if c.get("applied"):
            continue
        reason = (c.get("reason") or "unknown reason").strip()
        head = reason.split("Found from", 1)[0].strip().rstrip(".")
        frames = frames_in(reason)
        if not frames:
            # Partition reasons name the op: "cpu ops (aten.sum.default(arg1_1))".
            for op in _CG_OP.findall(reason):
                frames += ctx.op_user_lines(c.get("compile_id"), op)
        frame = ctx.user_frame(frames, cid=c.get("compile_id"))
        g = groups.setdefault((head, frame.filename, frame.lineno),
                              {"rows": [], "frame": frame, "head": head})
        g["rows"].append(c)
    out = []
    for g in groups.values():
        cids = tuple(r["compile_id"] for r in g["rows"] if r.get("compile_id"))
        out.append(Diagnosis(KIND, stage="inductor", compile_id=cids[0] if cids else None,
                             reason=f"CUDA graphs skipped: {g['head']}", user_frame=g["frame"],
                             explanation=EXPLANATION, fix=cudagraph_fix(g["head"]),
                             score=score(KIND, len(g["rows"])), count=len(g["rows"]),
                             compile_ids=cids, details=Details(),
                             torch_message=g["rows"][0].get("reason")))
    return out


@hookimpl
def compdiag_limiter(diagnosis: Diagnosis, timings: Any) -> Limiter | None:
    """Without CUDA graphs every call pays every kernel's launch; on a CPU program they never
    apply, so the skip costs nothing there."""
    if diagnosis.kind != KIND:
        return None
    gs = timings.graphs_of(diagnosis.compile_ids)
    if gs and all(not str(g.get("device") or "").startswith("cuda") for g in gs):
        return structural("cudagraph_skipped", 0.01, diagnosis,
                          "the graph runs on the CPU: CUDA graphs do not apply, so "
                          "mode='reduce-overhead' cannot remove any launch cost here")
    return structural("cudagraph_skipped", 0.5 * (timings.share(gs) if gs else 0.2), diagnosis,
                      "the graph runs without CUDA graphs, paying the launch cost of every "
                      "kernel on every call")
