"""The one cost model explain ranks by.

A diagnosis' score is what it costs the user, estimated from what the store counted:

    score = base[class] + per_event[class] * min(events, cap[class]) + sum(adjustments)

`class` is the cost class a kind files the diagnosis under, `events` how often it happened
(graph-break hits, recompiles, refused fusions, ...), `adjustments` named facts that change
the cost. Each kind declares its own classes and adjustments in its KindSpec
(analyses/kind_spec.py, in the kind's module); SHARED below are the classes any kind may use.
The classes, by what each costs a run (highest base first; the kind that declares it):

- `crash` (shared): the exception that ended the program through compiled code: nothing after
  it ran.
- `ending` (program): the run ended abnormally without a fault of compiled code (the
  program's own exception, Ctrl-C, a signal, an exit status): it did not finish, so above
  every problem that did not cause it (the recompile limit included, issue 29 §2); what
  caused it lifts it or folds it.
- `user_check` (program): the program failed on an accuracy check of the user's own (an
  assert comparing eager and compiled): how the run ended, so just below `ending` and above
  the limit (a graph break lifted to a compile failure's cost by the frame torch skipped
  ranked above it, against issue 29 §2/§3). A check whose compiled result --check-accuracy
  measured to differ from eager folds under that `accuracy` diagnosis (its cause), which then
  ranks where the check would have.
- `accuracy` (accuracy): compiled code computed other numbers than eager, measured (a
  miscompile by the float64 reference, a wrong gradient, a dropped check): silently wrong
  results, so above every problem that costs only speed (the recompile limit, a compile
  failure whose frame ran in eager, ranks that diverged); below how the run ended.
- `limit` (recompile): a function stuck in eager by the recompile limit: its whole speed-up
  is gone.
- `failure` (failure): other compile failures (the frame ran in eager).
- `divergence` (divergence): ranks of one job compiled differently (a collective that waits on
  a rank that took another path hangs the job): below failures.
- `recurring_recompile` (recompile): a guard on one input that failed again and again with a
  new value each time (a learning rate, a step counter): a whole compile every step, which
  costs more than any graph break; hence above graph breaks, whatever the break's hit count.
- `asked_end` (program): the program ended itself with sys.exit(N != 0). It did not finish,
  but it chose to and printed why; what made it choose is the news (a step-time watchdog that
  exits on the steps a recurring recompile slowed), so below the recurring recompiles and
  every failure, above the graph breaks and the few recompiles.
- `graph_break`, `cudagraph`, `recompile` (a few recompiles): per event.
- `numerics` (accuracy): compiled and eager differ, but the float64 reference shows it is not
  the compiler's (an ill-conditioned computation, eager's own overflow): worth knowing, below
  the recompiles.
- `global_setting` (perf): one setting that speeds up every matmul of the program (TF32),
  above any count of missed fusions and the other perf hints.
- `cache` (cache): a compile-cache bypass: every warm start of the program pays a cold compile,
  above the per-kernel perf hints.
- `ddp` (ddp): DDPOptimizer split a compiled graph at DDP's bucket boundaries: by design,
  but each cut costs graphs, kernels and fusion across it; per extra graph, below a cache
  bypass (which costs every start a whole cold compile), above the perf hints.
- `perf`, `fusion`: per event.
- `cache_miss` (cache): a cache miss explained by the key components that changed: why a
  compile was slow, information rather than a fault.
- `info` (shared): what torch does on purpose (one automatic-dynamic recompile per new
  dimension).

Diagnoses of equal score keep their kinds' tie order (KindSpec.tie), then the order their kind
produced them (`order`, a hundredth per position, keeps that order inside one class)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Cost:
    base: float
    per_event: float = 0.0
    cap: int = 0


# The classes every kind may file a diagnosis under, besides its own.
SHARED: dict[str, Cost] = {
    "crash": Cost(1000),
    "info": Cost(0, per_event=1.0, cap=10),
}


def score(cost: Cost, events: float = 0, adjustments: Mapping[str, float] | None = None,
          *named: str, order: int = 0) -> float:
    """The cost model: a diagnosis of cost `cost` seen `events` times, moved by the `named`
    adjustments (looked up in `adjustments`)."""
    value = cost.base + cost.per_event * min(max(events, 0), cost.cap)
    return value + sum((adjustments or {})[a] for a in named) - order * 0.01

