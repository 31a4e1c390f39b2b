"""A graph captured with symbolic sizes is replayed with symbolic sizes (minify/graph.py's
Problem.dynamic_shapes, oracle.run_case's `dynamic`, the repro's `torch.compile(f,
dynamic=True)`). probes32e yolo_focus_stem: Inductor failed on `12*((s54//2)) < 12` in a
dynamic graph; `compdiag minify` compiled the captured graph again with compile_fx on the ints
s14=96, s54=128, a static graph that passed, and said "the captured graph does not reproduce
TypeError when compiled again (it passes)"."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.minify import oracle
from compdiag.minify.graph import Problem


def _problem(*inputs: dict) -> Problem:
    return Problem(1, "0/1", 1, {"kind": "compile_error", "inputs": list(inputs)}, [], {})


def test_symbol_placeholders_make_a_dynamic_problem():
    assert _problem({"name": "s14", "scalar": 96}, {"name": "x", "tensor": "input:1"}) \
        .dynamic_shapes
    assert _problem({"name": "u3", "scalar": 5}).dynamic_shapes
    # a Python number the program passed is no symbol
    assert not _problem({"name": "l_scale_", "scalar": 0.5},
                        {"name": "x", "tensor": "input:1"}).dynamic_shapes


def test_a_dynamic_replay_hands_the_backend_symbolic_sizes():
    def f(s0, x):
        return x.reshape(2, s0 // 2) * 2

    gm = torch.fx.symbolic_trace(f)
    seen: list = []

    def backend(g, example_inputs):
        seen.extend(type(i).__name__ for i in example_inputs)
        if any(isinstance(i, torch.SymInt) for i in example_inputs):
            raise TypeError("cannot determine truth value of Relational")  # as Inductor did
        return g.forward

    args = [8, torch.ones(8)]
    assert oracle.run_case(gm, args, "compile_error", {}, compile_fn=backend) == ("pass", None)
    outcome = oracle.run_case(gm, args, "compile_error", {}, compile_fn=backend, dynamic=True)
    assert outcome[0] == "fail" and "SymInt" in seen, (outcome, seen)


def test_a_dynamo_failure_before_any_op_says_there_is_no_graph_op_to_shrink():
    """probes33a expert_choice_fullgraph: `(~covered).nonzero().squeeze(-1).tolist()` failed in
    Dynamo on `Eq(u0, 0)`; minify refused with "the failing graph returns no tensor computed by
    the graph", which said nothing of Dynamo or where to look."""
    import pytest

    from compdiag.capture.failure_graphs import describe
    from compdiag.minify.graph import MinifyError, Model

    gm = torch.fx.symbolic_trace(lambda x: x.shape[0])
    doc, _ = describe(gm, [torch.ones(3)], kind="compile_error", stage="dynamo",
                      exc_type="GuardOnDataDependentSymNode",
                      message="Could not guard on data-dependent expression Eq(u0, 0)",
                      sig=("GuardOnDataDependentSymNode", ""))
    model = Model(Problem(1, "0/0", 1, doc, [torch.ones(3)], {}))
    with pytest.raises(MinifyError, match="happened in Dynamo while it traced Python code"):
        model.initial()
