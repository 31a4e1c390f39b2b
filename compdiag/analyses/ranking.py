"""The one cost model explain ranks by: bands per kind, then each kind's own adjustments
(documented in its module) within its band.

A crash beats everything, then a function stuck in eager by the recompile limit, other
failures, wrong numbers, graph breaks (ordered by cost), CUDA-graph skips, recompiles, perf
hints and missed fusions. Diagnoses of equal score keep the order of KIND_ORDER, then the
order their kind produced them. Ranks of a job that diverged (`divergence`: a hang in waiting)
rank between failures and wrong numbers."""

from __future__ import annotations

BANDS = {"crash": 1000, "limit": 900, "failure": 800, "accuracy": 700, "graph_break": 300,
         "cudagraph": 250, "recompile": 200, "perf": 110, "fusion": 100}

# Tie-break between kinds of equal score: the order explain has always listed them in.
KIND_ORDER = ("failure", "recompile", "graph_break", "accuracy", "cudagraph", "fusion", "perf")

BANDS["divergence"] = 720
KIND_ORDER += ("divergence",)


def kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
