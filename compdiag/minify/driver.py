"""`compdiag minify`'s engine: one GraphShrinker owns the current candidate, the compile
predicate and the query count; its passes are its methods.

Passes, each step re-verified by compiling the candidate:
  failing op         the node a failure names (Dynamo's failing node; the one node of the op an
                     Inductor error names, "target: aten.relu.default"): that node alone
  first differing op a wrong gradient: one compile with every value an output finds the first
                     op whose value differs from eager's (minify/first_diff.py); that op
                     alone, else with the ops it reads from (then no prefix is searched)
  truncate tail      binary-search the shortest failing prefix of the nodes
  truncate head      then the shortest failing suffix of it, its last node alone first (the
                     prefix without that node passed: it is the one spot such a bug is in)
  drop outputs       delete chunks of outputs
  cut nodes          delete chunks of nodes (each becomes an input fed with its eager value;
                     an output's operands take its place; what nothing reads vanishes)
  shrink shapes      slice every input dim of one size to 1 (then 2, half) at once
  zero inputs        feed large inputs with zeros (so the repro can write them inline)
  simplify constants set the float constants of the nodes left to 1.0 (one query)
  drop config        forget config patches the failure does not need
Unused inputs never appear: the inputs of a candidate are exactly what its nodes read.

Fewer compiles: the captured graph is not compiled again first (a smaller candidate that
fails proves it reproduces; only when nothing smaller fails is it asked, at the end, and a
graph that does not reproduce is refused then), and until a first candidate is accepted the
cheap cuts carry every input dim > 1 shrunk to 1 (so one compile can both cut and shrink)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Hashable

from compdiag.minify import first_diff
from compdiag.minify.graph import INLINE_NUMEL, Candidate, MinifyError, Model, NotReproduced, \
    Problem, QueryLog, make_predicate
from compdiag.minify.result import Result
from compdiag.minify.shrinker import Shrinker, shrink_pass


class GraphShrinker(Shrinker[Candidate]):
    """Reduces a captured failing graph to a 1-minimal one that fails the same way.

    `run(gm, inputs, kind, config, ...)` judges one candidate (default: compile it with
    Inductor, minify/oracle.py); `progress(pass, nodes, initial nodes, compiles)` hears of
    every change; `max_queries` caps the unique queries."""

    def __init__(self, problem: Problem, *, run: Callable[..., tuple[str, Any]] | None = None,
                 progress: Callable[[str, int, int, int], None] | None = None,
                 max_queries: int | None = None, isolate: bool = False,
                 values: first_diff.Values | None = None) -> None:
        self.started = time.time()
        self.model = model = Model(problem)
        self.log = QueryLog()
        self.progress = progress
        if run is None and (isolate or problem.kind == "crash"):
            from compdiag.minify.isolate import IsolatedRunner

            run = IsolatedRunner(model)
        initial = model.initial()
        self.initial_nodes = len(initial.kept)
        # `values(gm, inputs, config, grad)`: the compiled outputs, for the first differing op
        if values is None and run is None:
            values = first_diff.compiled_values
        self.values = values if first_diff.applies(problem, self.initial_nodes) else None
        self.first_differing: tuple[str | None, str] | None = None   # (node, why)
        self.speculate: tuple[tuple[int, int], ...] = ()
        # The captured graph is not assumed to fail again: `reproduce` asks.
        super().__init__(initial, make_predicate(model, self.log, run), max_calls=max_queries,
                         verified=False)

    def key(self, value: Candidate) -> Hashable:
        return self.model.key(value)

    def sort_key(self, value: Candidate) -> Any:
        return self.model.size_key(value)

    def changed(self) -> None:
        self._report(self.pass_name)

    def _report(self, name: str) -> None:
        if self.progress is not None:
            self.progress(name, len(self.current.kept), self.initial_nodes, self.log.compiles)

    # -- the schedule -----------------------------------------------------------------------------
    def shrink(self) -> Result:
        self._report("truncate tail")
        self.speculate = self._all_dims_to_one(self.initial)
        self.failing_op()
        if not self.first_differing_op():
            self.truncate_tail()
        self.truncate_head()
        if not self.changes:
            self.reproduce()
        self.speculate = ()
        self.run()
        before = self.changes
        self.shrink_shapes()
        self.zero_inputs()
        self.simplify_constants()
        self.drop_config()
        if self.changes != before:  # smaller values may let more nodes go
            self.run()
        one_minimal = self.check_one_minimal()
        self._report("done")
        return Result(self.model.problem, self.model, self.current,
                      self.model.build(self.current), self.log.compiles, self.calls,
                      one_minimal, self.initial_nodes, time.time() - self.started,
                      dict(self.per_pass), self.first_differing)

    def run_step(self) -> None:
        self.drop_outputs()
        self.cut_nodes()

    # -- passes -------------------------------------------------------------------------------
    @shrink_pass("reproduce")
    def reproduce(self) -> None:
        """Compile the captured graph once more (only when no smaller candidate failed; with
        its inputs shrunk to 1x1 first, when they are large): it must fail the same way."""
        n0 = self.initial_nodes
        if self.progress is not None:
            self.progress("reproduce", n0, n0, self.log.compiles)
        if self.speculate and self._cheap(self.initial):   # with 1x1 inputs, if that fails
            return
        if not self.query(self.initial):
            log = self.log
            outcome = log.outcomes[-1] if log.outcomes else ("?", None)
            if outcome[0] == "invalid":
                raise MinifyError(f"the failing graph cannot be replayed: {outcome[1]}")
            seen = "it passes" if outcome[0] == "pass" else f"it fails differently: {outcome[1]}"
            raise NotReproduced(f"the captured graph does not reproduce "
                              f"{self.model.problem.target[0]} when compiled again ({seen})")
        if self.progress is not None:
            self.progress("cut nodes", n0, n0, self.log.compiles)

    # Cheap first cuts for a bug that one spot of the graph causes: log2(n) queries each;
    # every step is verified, so a bug that needs two far-apart nodes only makes these cuts
    # smaller, and the chunk passes after them still make the result 1-minimal.
    def _cheap(self, c: Candidate | None) -> bool:
        """`consider` for the cheap cuts: with the speculative shapes while nothing is
        accepted yet or what was accepted has them (a cut from the pass's base does not)."""
        if not self.changes and self.max_calls is not None \
                and self.calls >= self.max_calls - 1:
            return False   # the last query of a cap is the captured graph's own
        if c is not None and self.speculate and (
                not self.changes or self.current.sizes == self.speculate):
            c = replace(c, sizes=self.speculate)
        return self.consider(c)

    @shrink_pass("failing op")
    def failing_op(self) -> None:
        name = self.model.named_node(self.current)
        if name is not None and len(self.current.kept) > 1:
            self._cheap(self.model.only(self.current, name))

    @shrink_pass("first differing op")
    def first_differing_op(self) -> bool:
        """True when the first op whose compiled value differs (alone, or with what it reads)
        is the current candidate: its output is that op, so no prefix of it differs."""
        if self.values is None or self.changes or (
                self.max_calls is not None and self.calls >= self.max_calls - 2):
            return False
        self.calls += 1   # one compile, counted as a query of this pass
        self.per_pass[self.pass_name] = self.per_pass.get(self.pass_name, 0) + 1
        self.log.compiles += 1
        self._report(self.pass_name)
        try:
            self.first_differing = first_diff.first_differing(self.model, self.values)
        except Exception as exc:  # noqa: BLE001 - the probe only guides; the passes decide
            self.first_differing = (None, f"the probe failed: {type(exc).__name__}: {exc}"[:200])
        name = self.first_differing[0]
        if name is None:
            # no op differs: ask at once whether the graph fails at all (a backward fed saved
            # values that carry the difference does not), before log2(n) prefixes
            self.reproduce()
            return False
        c = self.current
        return self._cheap(self.model.only(c, name)) or self._cheap(
            first_diff.cone(self.model, c, name))

    @shrink_pass("truncate tail")
    def truncate_tail(self) -> None:
        base = self.current
        lo, hi = 0, len(base.kept)   # the prefix of hi nodes fails; lo nodes: not known to
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if self._cheap(self.model.prefix(base, mid)):
                hi = mid
            else:
                lo = mid

    @shrink_pass("truncate head")
    def truncate_head(self) -> None:
        base = self.current
        lo, hi = 0, len(base.kept)   # cutting lo leading nodes still fails
        if hi > 1:
            if self._cheap(self.model.suffix(base, hi - 1)):
                return
            hi -= 1
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if self._cheap(self.model.suffix(base, mid)):
                lo = mid
            else:
                hi = mid

    @shrink_pass("drop outputs")
    def drop_outputs(self) -> None:
        self.delete_chunks(lambda c: c.outputs, self.model.without_outputs)

    @shrink_pass("cut nodes")
    def cut_nodes(self) -> None:
        self.delete_chunks(self.model.nodes_of, self.model.without_nodes)

    @shrink_pass("shrink shapes")
    def shrink_shapes(self) -> None:
        model = self.model
        if not self._big(self.current):
            return
        sizes = sorted({s for n in model.input_names(self.current)
                        for s in self._shape(n) if s > 1}, reverse=True)
        for s in sizes:
            done = dict(self.current.sizes)
            if s in done:
                continue
            for new in dict.fromkeys(x for x in (1, 2, s // 2) if 0 < x < s):
                if self.consider(replace(self.current,
                                         sizes=tuple(sorted({**done, s: new}.items())))):
                    break
            if not self._big(self.current):
                return

    @shrink_pass("zero inputs")
    def zero_inputs(self) -> None:
        c = self.current
        large = [n for n in self.model.input_names(c)
                 if self.model.input_value_shape(c, n) > INLINE_NUMEL and n not in c.zeroed]
        if large:
            self.consider(replace(c, zeroed=c.zeroed | frozenset(large)))

    @shrink_pass("simplify constants")
    def simplify_constants(self) -> None:
        """All float constants to 1.0 in one query (no per-constant search: readability is
        not worth many compiles)."""
        c = self.current
        consts = [k for k in self.model.float_consts(c) if k not in c.unit_consts]
        if consts:
            self.consider(replace(c, unit_consts=c.unit_consts | frozenset(consts)))

    @shrink_pass("drop config")
    def drop_config(self) -> None:
        config = self.model.problem.doc.get("config", {})

        def items(c: Candidate) -> list[str]:
            return [k for k in config if k not in c.dropped_config
                    and not k.endswith("_TESTING_ONLY")]

        def drop(c: Candidate, ks: Any) -> Candidate:
            return replace(c, dropped_config=c.dropped_config | frozenset(ks))

        everything = items(self.current)
        if everything and not self.consider(drop(self.current, everything)):
            self.delete_chunks(items, drop)

    @shrink_pass("1-minimal check")
    def check_one_minimal(self) -> bool:
        """No single node and no single output can be cut (known from the passes' queries,
        unless a cap on queries stopped them)."""
        model = self.model
        return (self.is_one_minimal(model.nodes_of, model.without_nodes)
                and self.is_one_minimal(lambda c: c.outputs, model.without_outputs))

    # -- helpers ------------------------------------------------------------------------------
    def _all_dims_to_one(self, c: Candidate) -> tuple[tuple[int, int], ...]:
        """Every input dim > 1 shrunk to 1, when the inputs are too large to write inline."""
        if not self._big(c):
            return ()
        return tuple(sorted({(s, 1) for n in self.model.input_names(c)
                             for s in self._shape(n) if s > 1}))

    def _big(self, c: Candidate) -> bool:
        model = self.model
        return sum(model.input_value_shape(c, n) for n in model.input_names(c)) > INLINE_NUMEL

    def _shape(self, name: str) -> tuple[int, ...]:
        model = self.model
        v = (model.problem.inputs[model.placeholders.index(name)] if name in model.placeholders
             else model.values[name])
        return tuple(v.shape) if hasattr(v, "shape") else ()


def minify(problem: Problem, *, run: Callable[..., tuple[str, Any]] | None = None,
           progress: Any = None, max_queries: int | None = None,
           isolate: bool = False, values: first_diff.Values | None = None) -> Result:
    """Reduce the failing graph to a 1-minimal one that fails the same way."""
    return GraphShrinker(problem, run=run, progress=progress, max_queries=max_queries,
                         isolate=isolate, values=values).shrink()


def minify_run(reader: Any, run_id: int, output: Path, *, graph: str | None = None,
               progress: Any = None, max_queries: int | None = None,
               isolate: bool = False) -> tuple[Result, list[Path]]:
    """The public entry point (`compdiag minify`, `compdiag report`): load the run's failing
    graph (the last one, or `graph`: a compile id or record id), reduce it, write repro.py at
    `output` and repro_check.py beside it. Returns the result and every path written, the
    repro first. MinifyError (one line) when it cannot; OSError when a file cannot be
    written."""
    from compdiag.minify.graph import default_order, failure_graphs, load
    from compdiag.minify.repro import write

    # by default, the last compile's kept graphs in turn while one does not reproduce
    others = [str(g["id"]) for g in default_order(failure_graphs(reader, run_id))[1:]] \
        if graph is None else []
    while True:
        problem = load(reader, run_id, graph)
        try:
            result = minify(problem, progress=progress, max_queries=max_queries,
                            isolate=isolate)
        except NotReproduced:
            if not others:
                raise
            graph = others.pop(0)
            continue
        return result, write(result, output)
