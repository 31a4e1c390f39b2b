"""What a minification ends with: the minimal candidate, its graph, and how it was found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compdiag.formats.failure_graph import UnsupportedGraph, target_name
from compdiag.minify.graph import Built, Candidate, Model, Problem


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
    # a wrong gradient's first op whose compiled value differs (minify/first_diff.py): (node or
    # None, why); None when that probe did not run
    first_differing: tuple[str | None, str] | None = None

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
    try:
        return target_name(target)
    except UnsupportedGraph:
        return str(target)
