"""The one cost model explain ranks by.

A diagnosis' score is what it costs the user, estimated from what the store counted:

    score = base[class] + per_event[class] * min(events, cap[class]) + sum(adjustments)

`class` is the cost class a kind files the diagnosis under (COSTS below), `events` how often
it happened (graph-break hits, recompiles, refused fusions, ...), `adjustments` named facts
that change the cost (ADJUST). The classes are ordered by what each costs a run:

- `crash`: the exception that ended the program through compiled code: nothing after it ran.
- `limit`: a function stuck in eager by the recompile limit: its whole speed-up is gone.
- `failure`: other compile failures (the frame ran in eager).
- `divergence`: ranks of one job compiled differently (a collective that waits on a rank
  that took another path hangs the job): below failures, above wrong numbers.
- `accuracy`: compiled code computed other numbers than eager.
- `user_check`: the program failed on an accuracy check of the user's own (an assert comparing
  eager and compiled): the run's failure, and a verdict on compiled numbers, so next to
  `accuracy`.
- `recurring_recompile`: a guard on one input that failed again and again with a new value
  each time (a learning rate, a step counter): a whole compile every step, which costs more
  than any graph break; hence above graph breaks, whatever the break's hit count.
- `graph_break`, `cudagraph`, `recompile` (a few recompiles): per event.
- `numerics`: compiled and eager differ, but the float64 reference shows it is not the
  compiler's (an ill-conditioned computation, eager's own overflow): worth knowing, below the
  recompiles.
- `global_setting`: one setting that speeds up every matmul of the program (TF32), above any
  count of missed fusions and the other perf hints.
- `cache`: a compile-cache bypass: every warm start of the program pays a cold compile
  (diagnoses/cache.py), above the per-kernel perf hints.
- `ddp`: DDPOptimizer split a compiled graph at DDP's bucket boundaries (diagnoses/ddp.py):
  by design, but each cut costs graphs, kernels and fusion across it; per extra graph, below
  a cache bypass (which costs every start a whole cold compile), above the perf hints.
- `perf`, `fusion`: per event.
- `program`: the program raised outside compiled code; shown (it is why the run failed), but
  not torch.compile's doing, so below everything torch.compile did.
- `cache_miss`: a cache miss explained by the key components that changed: why a compile was
  slow, information rather than a fault.
- `info`: what torch does on purpose (one automatic-dynamic recompile per new dimension).

Diagnoses of equal score keep the order of KIND_ORDER, then the order their kind produced
them (`order`, a hundredth per position, keeps that order inside one class)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cost:
    base: float
    per_event: float = 0.0
    cap: int = 0


COSTS: dict[str, Cost] = {
    "crash": Cost(1000),
    "limit": Cost(900),
    "failure": Cost(800),
    "divergence": Cost(720),
    "accuracy": Cost(700, per_event=1.0, cap=50),   # events: max relative error, capped
    "user_check": Cost(650),
    "recurring_recompile": Cost(600, per_event=20.0, cap=10),
    "graph_break": Cost(300, per_event=10.0, cap=20),
    "cudagraph": Cost(250, per_event=1.0, cap=50),
    "recompile": Cost(200, per_event=20.0, cap=10),
    "numerics": Cost(190),
    "global_setting": Cost(131),  # one setting (TF32) speeds up every matmul of the program
    "cache": Cost(120),
    "ddp": Cost(112, per_event=1.0, cap=5),
    "perf": Cost(110),
    "fusion": Cost(100, per_event=1.0, cap=30),
    "program": Cost(90),
    "cache_miss": Cost(10),
    "info": Cost(0, per_event=1.0, cap=10),
}
# Named facts that move a diagnosis within (or below) its class.
ADJUST: dict[str, float] = {
    "frame_skipped": 60.0,      # a break that threw the whole function back to eager
    "follow_on": -80.0,         # a break caused by an earlier break (reconstruction failure)
    "nondeterministic": -100.0,  # eager itself differs run to run: not the compiler's fault
    "configured_only": -1.0,    # an injector in the config, nothing measured
    "partial_coverage": -20.0,  # CUDA graphs cover part of a graph (partitioned), not none
    "cache_bypassed": 10.0,     # a DDP split whose pieces bypass the compile cache (above it)
}
# The classes' bases, by name (kinds read their class' base to place a diagnosis).
BANDS = {name: cost.base for name, cost in COSTS.items()}

# Tie-break between kinds of equal score: the order explain has always listed them in.
KIND_ORDER = ("failure", "recompile", "graph_break", "accuracy", "cudagraph", "fusion", "perf",
              "program", "divergence", "cache", "ddp")


def score(cls: str, events: float = 0, *adjustments: str, order: int = 0) -> float:
    """The cost model: a diagnosis of cost class `cls` seen `events` times."""
    cost = COSTS[cls]
    value = cost.base + cost.per_event * min(max(events, 0), cost.cap)
    return value + sum(ADJUST[a] for a in adjustments) - order * 0.01



def kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
