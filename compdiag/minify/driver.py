"""`compdiag minify`'s engine: the graph passes over the generic Reducer, and the result.

Passes, each step re-verified by compiling the candidate:
  drop outputs       delete chunks of outputs
  cut nodes          delete chunks of nodes (each becomes an input fed with its eager value;
                     an output's operands take its place; what nothing reads vanishes)
  shrink shapes      slice every input dim of one size to 1 (then 2, half) at once
  zero inputs        feed large inputs with zeros (so the repro can write them inline)
  simplify constants set the float constants of the nodes left to 1.0 (one query)
  drop config        forget config patches the failure does not need
Unused inputs never appear: the inputs of a candidate are exactly what its nodes read."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from compdiag.minify.graph import INLINE_NUMEL, Built, Candidate, Model, Problem, QueryLog, \
    MinifyError, make_predicate
from compdiag.minify.reducer import Reducer


@dataclass
class Result:
    problem: Problem
    model: Model
    candidate: Candidate
    built: Built
    queries: int               # compile attempts (candidates whose eager run was valid)
    checks: int                # all predicate evaluations, invalid candidates included
    one_minimal: bool
    initial_nodes: int
    wall_s: float
    per_pass: dict[str, int]

    @property
    def ops(self) -> list[str]:
        out = []
        for n in self.built.gm.graph.nodes:
            if n.op == "call_function":
                out.append(_op_name(n.target))
            elif n.op == "call_method":
                out.append(f"Tensor.{n.target}")
            elif n.op == "get_attr":
                out.append(f"get_attr {n.target}")
        return out


def _op_name(target: Any) -> str:
    from compdiag.formats.failure_graph import UnsupportedGraph, target_name

    try:
        return target_name(target)
    except UnsupportedGraph:
        return str(target)


def graph_passes(model: Model) -> list[tuple[str, Callable[[Reducer[Candidate]], None]]]:
    def drop_outputs(r: Reducer[Candidate]) -> None:
        r.delete_chunks(lambda c: c.outputs, model.without_outputs)

    def cut_nodes(r: Reducer[Candidate]) -> None:
        r.delete_chunks(model.nodes_of, model.without_nodes)

    return [("drop outputs", drop_outputs), ("cut nodes", cut_nodes)]


def bisect_passes(model: Model) -> list[tuple[str, Callable[[Reducer[Candidate]], None]]]:
    """Cheap first cuts for a bug that one spot of the graph causes: binary-search the
    shortest failing prefix (tail cut), then the shortest failing suffix of it (head cut).
    log2(n) queries each; every step is verified, so a bug that needs two far-apart nodes
    only makes these cuts smaller, and the chunk passes after them still make it 1-minimal."""

    def truncate_tail(r: Reducer[Candidate]) -> None:
        n = len(r.current.kept)
        lo, hi = 0, n          # the prefix of hi nodes fails; lo nodes: not known to
        base = r.current
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if r.consider(model.prefix(base, mid)):
                hi = mid
            else:
                lo = mid

    def truncate_head(r: Reducer[Candidate]) -> None:
        base = r.current
        lo, hi = 0, len(base.kept)   # cutting lo leading nodes still fails
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if r.consider(model.suffix(base, mid)):
                lo = mid
            else:
                hi = mid

    return [("truncate tail", truncate_tail), ("truncate head", truncate_head)]


def value_passes(model: Model) -> list[tuple[str, Callable[[Reducer[Candidate]], None]]]:
    def big(c: Candidate) -> bool:
        return sum(model.input_value_shape(c, n) for n in model.input_names(c)) > INLINE_NUMEL

    def shrink_shapes(r: Reducer[Candidate]) -> None:
        if not big(r.current):
            return
        sizes = sorted({s for n in model.input_names(r.current)
                        for s in _shape(model, n) if s > 1}, reverse=True)
        for s in sizes:
            done = dict(r.current.sizes)
            if s in done:
                continue
            for new in dict.fromkeys(x for x in (1, 2, s // 2) if 0 < x < s):
                if r.consider(replace(r.current, sizes=tuple(sorted({**done, s: new}.items())))):
                    break
            if not big(r.current):
                return

    def zero_inputs(r: Reducer[Candidate]) -> None:
        c = r.current
        large = [n for n in model.input_names(c)
                 if model.input_value_shape(c, n) > INLINE_NUMEL and n not in c.zeroed]
        if large:
            r.consider(replace(c, zeroed=c.zeroed | frozenset(large)))

    def drop_config(r: Reducer[Candidate]) -> None:
        def items(c: Candidate) -> list[str]:
            return [k for k in model.problem.doc.get("config", {}) if k not in c.dropped_config
                    and not k.endswith("_TESTING_ONLY")]

        def drop(c: Candidate, ks: Any) -> Candidate:
            return replace(c, dropped_config=c.dropped_config | frozenset(ks))

        everything = items(r.current)
        if everything and not r.consider(drop(r.current, everything)):
            r.delete_chunks(items, drop)

    def simplify_constants(r: Reducer[Candidate]) -> None:
        """All float constants to 1.0 in one query (no per-constant search: readability is
        not worth many compiles)."""
        c = r.current
        consts = [k for k in model.float_consts(c) if k not in c.unit_consts]
        if consts:
            r.consider(replace(c, unit_consts=c.unit_consts | frozenset(consts)))

    return [("shrink shapes", shrink_shapes), ("zero inputs", zero_inputs),
            ("simplify constants", simplify_constants), ("drop config", drop_config)]


def _shape(model: Model, name: str) -> tuple[int, ...]:
    v = (model.problem.inputs[model.placeholders.index(name)] if name in model.placeholders
         else model.values[name])
    return tuple(v.shape) if hasattr(v, "shape") else ()


def minify(problem: Problem, *, run: Callable[..., tuple[str, Any]] | None = None,
           progress: Any = None, max_queries: int | None = None,
           isolate: bool = False) -> Result:
    """Reduce the failing graph to a 1-minimal one that fails the same way."""
    started = time.time()
    model = Model(problem)
    log = QueryLog()
    if run is None and (isolate or problem.kind == "crash"):
        from compdiag.minify.isolate import IsolatedRunner

        run = IsolatedRunner(model)
    predicate = make_predicate(model, log, run)
    initial = model.initial()
    n0 = len(initial.kept)

    def on_change(r: Reducer[Candidate]) -> None:
        if progress is not None:
            progress(r.pass_name, len(r.current.kept), n0, log.compiles)

    reducer: Reducer[Candidate] = Reducer(initial, predicate, key=model.key,
                                          sort_key=model.size_key, on_change=on_change,
                                          max_calls=max_queries)
    reducer.cache.pop(model.key(initial))
    reducer.pass_name = "reproduce"
    if progress is not None:
        progress("reproduce", n0, n0, 0)
    if not reducer.query(initial):
        outcome = log.outcomes[-1] if log.outcomes else ("?", None)
        if outcome[0] == "invalid":
            raise MinifyError(f"the failing graph cannot be replayed: {outcome[1]}")
        seen = "it passes" if outcome[0] == "pass" else f"it fails differently: {outcome[1]}"
        raise MinifyError(f"the captured graph does not reproduce {problem.target[0]} when "
                          f"compiled again ({seen})")
    if progress is not None:
        progress("cut nodes", n0, n0, log.compiles)
    for name, fn in bisect_passes(model):
        reducer.pass_name = name
        fn(reducer)
    reducer.run(graph_passes(model))
    before = model.key(reducer.current)
    for name, fn in value_passes(model):
        reducer.pass_name = name
        fn(reducer)
    if model.key(reducer.current) != before:
        reducer.run(graph_passes(model))
    reducer.pass_name = "1-minimal check"
    one_min = (reducer.is_one_minimal(model.nodes_of, model.without_nodes)
               and reducer.is_one_minimal(lambda c: c.outputs, model.without_outputs))
    if progress is not None:
        progress("done", len(reducer.current.kept), n0, log.compiles)
    return Result(problem, model, reducer.current, model.build(reducer.current), log.compiles,
                  reducer.stats.calls, one_min, n0, time.time() - started,
                  dict(reducer.stats.per_pass))
