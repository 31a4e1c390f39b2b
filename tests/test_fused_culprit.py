"""The op whose compiled code is wrong, when fusion hides it until a later node (issue 29 §4,
at the op's line): capture/accuracy.py's localise() finds the first node whose compiled output
differs by graph prefixes, and fused_culprit() then feeds eager's values to ever later cuts of
that prefix to find the op the divergence needs. Fast oracles: a "compiler" that runs the graph
eagerly and adds an error whenever a chosen op is compiled together with its consumer (what
Inductor's fusion does to uint8 `abs` in a sum, pytorch/pytorch#187018)."""

from __future__ import annotations

import torch
import torch.fx
from hypothesis import given, settings
from hypothesis import strategies as st

from compdiag.capture.accuracy import Tolerance, localise

UNARY = [torch.abs, torch.neg, torch.sin, torch.cos, torch.exp, torch.tanh]


def _chain(ops: list) -> torch.fx.GraphModule:
    """x -> ops[0] -> ... -> ops[-1] -> sum, every node with its example value."""
    graph = torch.fx.Graph()
    value = graph.placeholder("x")
    for op in ops:
        value = graph.call_function(op, (value,))
    total = graph.call_function(torch.sum, (value,))
    graph.output((total,))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)

    class Meta(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            n.meta["val"] = out
            return out

    Meta(gm).run(torch.linspace(-1, 1, 8))
    return gm


def _fusing_bug(bad):
    """Compiled code that is wrong when op BAD and the sum are in one graph (fused), right
    when either is compiled alone."""
    def compiler(gm, _args):
        targets = {n.target for n in gm.graph.nodes}
        wrong = bad in targets and torch.sum in targets

        def run(*args):
            out = gm(*args)
            return tuple(o + 1000 for o in out) if wrong else out
        return run
    return compiler


def _own_bug(target):
    def compiler(gm, _args):
        wrong = target in {n.target for n in gm.graph.nodes}

        def run(*args):
            out = gm(*args)
            return tuple(o + 1000 for o in out) if wrong else out
        return run
    return compiler


def test_an_op_fused_into_its_consumer_is_the_one_named():
    """On main the verdict named the sum (the first output that differs) and its line; the
    wrong code is abs's, inside the sum's kernel."""
    gm = _chain([torch.abs, torch.neg, torch.sin])
    found = localise(gm, _fusing_bug(torch.abs), [torch.linspace(-1, 1, 8)],
                     torch.random.get_rng_state(), Tolerance())
    assert found["op"] == "abs" and found["shows_at"]["op"] == "sum"


def test_a_node_wrong_on_its_own_is_named_as_before():
    gm = _chain([torch.abs, torch.neg])
    found = localise(gm, _own_bug(torch.sum), [torch.linspace(-1, 1, 8)],
                     torch.random.get_rng_state(), Tolerance())
    assert found["op"] == "sum" and "shows_at" not in found


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(UNARY), min_size=1, max_size=8, unique=True), st.data())
def test_whichever_op_is_wrong_inside_the_fusion_is_found(ops, data):
    bad = data.draw(st.sampled_from(ops))
    gm = _chain(ops)
    found = localise(gm, _fusing_bug(bad), [torch.linspace(-1, 1, 8)],
                     torch.random.get_rng_state(), Tolerance())
    assert found["op"] == bad.__name__
    assert found["shows_at"]["op"] == "sum"



def test_an_inf_only_compiled_code_makes_is_searched_inside_the_fusion():
    """probes36f survival_expm1_loglik: `log(-expm1(-rate * dt))`, Inductor's fused expm1 of
    -2e-9 gave 0 and the log -inf, where eager and float64 are finite. The verdict (inf/nan
    only) kept the search from looking inside the fusion and the log was blamed; an inf or
    NaN that only compiled code makes, eager matching float64, is wrong code to look into.
    One the float64 reference has too (eager overflowing) is not."""
    from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck
    from compdiag.capture.accuracy_localise import wrong_code

    def check(**detail):
        return GraphCheck("0/0", [OutputCheck("output 0", False, 0.0, 0.0, detail)])

    assert wrong_code(check(verdict="inf_nan", matches_fp64="eager"))
    assert not wrong_code(check(verdict="inf_nan", matches_fp64="compiled"))
    assert not wrong_code(check(verdict="inf_nan"))
    assert wrong_code(check(verdict="miscompile")) and not wrong_code(check(verdict="tf32"))


def _node_bug(bad):
    """Compiled code that computes op BAD's own value wrongly, wherever it sits."""
    def compiler(gm, _args):
        class Wrong(torch.fx.Interpreter):
            def run_node(self, n):
                out = super().run_node(n)
                return out + 1000 if n.op == "call_function" and n.target is bad else out

        return lambda *args: Wrong(gm).run(*args)
    return compiler


def _two_branches(early: int, late: int) -> torch.fx.GraphModule:
    """x -> `early` unary ops (the first an exp); y -> `late` unary ops; both returned: the
    later branch never reads the earlier one."""
    graph = torch.fx.Graph()
    x, y = graph.placeholder("x"), graph.placeholder("y")
    a = graph.call_function(torch.exp, (x,))
    for _ in range(early - 1):
        a = graph.call_function(torch.neg, (a,))
    b = y
    for _ in range(late):
        b = graph.call_function(torch.sin, (b,))
    graph.output((a, b))
    gm = torch.fx.GraphModule(torch.nn.Module(), graph)

    class Meta(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            n.meta["val"] = out
            return out

    Meta(gm).run(torch.linspace(-1, 1, 8), torch.linspace(-1, 1, 8))
    return gm


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 9))
def test_a_wrong_value_no_later_op_reads_is_still_found(early, late):
    """The bisection's prefixes each returned one node's value: once past a wrong node that no
    later node reads, every prefix looked right, and the search found nothing or a later node
    (its predicate was not monotone). Prefixes now return every value nothing in them reads."""
    gm = _two_branches(early, late)
    args = [torch.linspace(-1, 1, 8), torch.linspace(-1, 1, 8)]
    found = localise(gm, _node_bug(torch.exp), args, torch.random.get_rng_state(), Tolerance(),
                     fused=False)
    assert found is not None and found["op"] == "exp", found
