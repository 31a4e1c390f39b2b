"""What keeps a timed run from being faster (`compdiag perf`): a Limiter is one cause with its
impact, and TimedRun is what a kind's `compdiag_limiter` hook may ask of the timings.

impact ~ the share of the run's compiled-graph time the cause touches, scaled by how much of
that it plausibly costs; it ranks causes, it is not a prediction of the gain."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from compdiag.analyses.diagnosis import Diagnosis, UserFrame
from compdiag.analyses.perf_stats import fmt_time


@dataclass(frozen=True)
class Limiter:
    kind: str
    impact: float
    basis: str  # measured | structural
    reason: str
    evidence: str
    compile_ids: tuple[str, ...]
    fix: str | None = None
    user_frame: UserFrame | None = None
    op: str | None = None  # the ATen op of a fallback limiter (typed; not in the JSON)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "impact": round(max(0.0, min(1.0, self.impact)), 4),
                "basis": self.basis, "reason": self.reason, "evidence": self.evidence,
                "compile_ids": list(self.compile_ids), "fix": self.fix,
                "user_frame": self.user_frame.to_json() if self.user_frame is not None
                else None}


def structural(kind: str, impact: float, d: Diagnosis, evidence: str,
               compile_ids: tuple[str, ...] | None = None, op: str | None = None) -> Limiter:
    """A limiter judged from the diagnosis' structure, carrying its reason, fix and line."""
    return Limiter(kind, impact, "structural", d.reason, evidence,
                   d.compile_ids if compile_ids is None else compile_ids, d.fix, d.user_frame,
                   op)


def with_consequences(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """The diagnoses and, after each, the consequences explain folded under it that are of
    another kind and not its own finding again: a consequence still costs speed on its own
    (a graph break's resumed code stuck in eager by the recompile limit, folded under the
    break, costs the whole speed-up of that code; benchmarks/probes24 perf_topk_tolist_rerank
    had no limiter saying so)."""
    out = []
    for d in diagnoses:
        out.append(d)
        out += [c.diagnosis for c in d.consequences
                if c.diagnosis.kind != d.kind and not c.same_finding]
    return out


def weight(g: dict[str, Any]) -> int:
    """How many times the graph ran: its time counts that often."""
    return max(1, int(g.get("calls") or 1))


class TimedRun:
    """The timed graphs of one run as the limiter hooks see them."""

    weight = staticmethod(weight)
    fmt_time = staticmethod(fmt_time)

    def __init__(self, graphs: list[dict[str, Any]], compiles: list[dict[str, Any]]) -> None:
        self.graphs = graphs
        self.compiles = compiles
        self.timed = [g for g in graphs if g["compiled"]]
        self.by_cid = {g["compile_id"]: g for g in graphs}
        self.total = sum(weight(g) * g["compiled"]["median"] for g in self.timed) or 0.0

    def share(self, gs: list[dict[str, Any]]) -> float:
        """The graphs' part of the run's compiled time, weighted by calls."""
        if not self.total:
            return 0.0
        return sum(weight(g) * g["compiled"]["median"] for g in gs if g["compiled"]) / self.total

    def graphs_of(self, compile_ids: tuple[str, ...]) -> list[dict[str, Any]]:
        return [self.by_cid[c] for c in compile_ids if c in self.by_cid]

    def frame_graphs(self, fn: str | None) -> list[dict[str, Any]]:
        """The timed graphs of a function and of Dynamo's resume functions after its breaks."""
        if not fn:
            return []
        resume = f"torch_dynamo_resume_in_{fn}_at_"
        return [g for g in self.timed if g.get("function") == fn
                or (g.get("function") or "").startswith(resume)]

    def fallback_impact(self, gs: list[dict[str, Any]]) -> float:
        """A fallback kernel's cost: its graphs' share, by the fallbacks' part of their kernels."""
        if not gs:
            return 0.05
        kern = sum(sum(g["kernels"].values()) for g in gs) or 1
        fb = sum(len(g["fallbacks"]) for g in gs) or 1
        return self.share(gs) * min(1.0, fb / kern + 0.1)


def merged(found: list[Limiter]) -> list[Limiter]:
    """One row per cause: limiters of one kind with the same reason at the same user line (the
    same refusal in each graph a recompile made of one function) become one, their impacts
    added and their graphs listed together (probes39c: perf's causes 3 and 4 were one text
    twice, for graphs 1/0 and 1/1)."""
    groups: dict[tuple, list[Limiter]] = {}
    for lim in found:
        frame = lim.user_frame
        at = (frame.filename, frame.lineno) if frame is not None else None
        groups.setdefault((lim.kind, lim.reason, lim.basis, at), []).append(lim)
    out = []
    for same in groups.values():
        first = same[0]
        if len(same) > 1:
            cids = tuple(dict.fromkeys(c for lim in same for c in lim.compile_ids))
            first = replace(first, impact=sum(lim.impact for lim in same), compile_ids=cids,
                            evidence=f"{first.evidence} (in each of {len(cids)} graphs: "
                                     f"{', '.join(cids)})")
        out.append(first)
    return out
