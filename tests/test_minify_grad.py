"""Minify from a wrong gradient (issue 33): the backward graph kept by `run --check-accuracy`
starts at the first op whose compiled value differs from eager's (minify/first_diff.py), on
fast synthetic "compilers" (no compile); the oracle's float64 reference where a backward graph
compares float32 values exactly; the backward graph of a run that hit AOTAutograd's cache."""

from __future__ import annotations

from types import SimpleNamespace

import torch
import torch.fx
from hypothesis import given, settings

from compdiag.minify import oracle
from compdiag.minify.driver import minify
from test_minify_reducer import GRAPH_PASSES, chain, check_minimal, ddmin_bound, \
    fake_accuracy, graphs, problem_of

INJECTOR = "cpp.inject_relu_bug_TESTING_ONLY"


def backward_problem(gm, inputs):
    problem = problem_of(gm, inputs, "accuracy", ("AccuracyMismatch", ""))
    problem.doc["graph"] = "backward"
    return problem


class Buggy(torch.fx.Interpreter):
    """'Inductor' with the relu injector (relu computes x + 1) and a sin one ulp off (a libm
    path of its own: within any tolerance, but not equal)."""

    def __init__(self, gm, config):
        super().__init__(gm)
        self.config = config

    def call_function(self, target, args, kwargs):
        if target is torch.relu and self.config.get(INJECTOR):
            return args[0] + 1
        if target is torch.sin:
            return torch.nextafter(torch.sin(args[0]), torch.tensor(float("inf")))
        return super().call_function(target, args, kwargs)


def fake_run(gm, inputs, kind, config, **kw):
    """The predicate's compile: Buggy judged against eager by the real oracle."""
    res = Buggy(gm, config).run(*inputs)
    return ("fail", ("AccuracyMismatch", "")) if oracle.mismatch(gm(*inputs), res, None) \
        else ("pass", None)


def fake_values(gm, inputs, config, grad_enabled=False):
    """The probe's compile: Buggy's value of every output."""
    return ("values", oracle._leaves(Buggy(gm, config).run(*inputs)))


def test_a_wrong_gradient_starts_at_the_first_op_whose_value_differs():
    """One compile with every value an output names relu, which fails alone: 2 compiles for
    a 12-op graph (truncating it cost 5: log2(12) prefixes and the last node alone). Before,
    minify had no such probe (`values`) and spent those 5."""
    ops = [torch.tanh, torch.cos] * 3 + [torch.relu] + [torch.neg, torch.cos] * 2 + [torch.tanh]
    gm, inputs = chain(ops, (6,))
    result = minify(backward_problem(gm, inputs), run=fake_run, values=fake_values)
    assert result.ops == ["torch.relu"] and result.one_minimal
    assert result.first_differing[0] == "relu"
    assert result.queries == 2 and result.per_pass == {"first differing op": 2}
    check_minimal(result.model, result, fake_run)
    # the forward's accuracy failures (no "graph": "backward") keep the usual passes
    forward = minify(problem_of(gm, inputs, "accuracy", ("AccuracyMismatch", "")),
                     run=fake_run, values=fake_values)
    assert "first differing op" not in forward.per_pass and forward.first_differing is None
    assert forward.ops == ["torch.relu"] and forward.queries > 2


def test_an_op_right_alone_is_kept_with_the_ops_it_reads():
    """The shape of pytorch/pytorch#186799: the backward recomputes a value (sin, by another
    libm path: one ulp off) and compares it exactly with the saved one. The first value that
    differs is the comparison's; alone, fed eager's sin, it is right, so the ops it reads come
    with it: sin and eq, 4 compiles (the probe, eq alone, eq with sin, sin alone: cutting eq
    promotes sin to the output, the one single cut not answered before)."""
    g = torch.fx.Graph()
    x, saved = g.placeholder("x"), g.placeholder("saved")
    c = g.call_function(torch.cos, (x,))
    s = g.call_function(torch.sin, (x,))
    e = g.call_function(torch.eq, (s, saved))
    m = g.call_function(torch.mul, (e, x))
    g.output((g.call_function(torch.add, (m, c)),))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    xs = torch.randn(6)
    result = minify(backward_problem(gm, [xs, torch.sin(xs)]), run=fake_run, values=fake_values)
    assert result.first_differing[0] == "eq"
    assert result.ops == ["torch.sin", "torch.eq"] and result.one_minimal
    assert result.per_pass == {"first differing op": 3, "cut nodes": 1}, result.per_pass
    check_minimal(result.model, result, fake_run)


def test_a_bug_the_probe_does_not_see_still_minifies():
    """With every value an output the bug hides (Inductor fuses otherwise): nothing is named,
    one compile is spent, and the usual passes still end 1-minimal at relu."""
    gm, inputs = chain([torch.tanh, torch.cos, torch.relu, torch.neg, torch.cos], (6,))

    def hides(gm_, ins, config, grad_enabled=False):
        return ("values", oracle._leaves(gm_(*ins)))

    result = minify(backward_problem(gm, inputs), run=fake_run, values=hides)
    assert result.first_differing[0] is None
    assert result.per_pass["first differing op"] == 1
    assert result.ops == ["torch.relu"] and result.one_minimal
    assert result.queries == result.checks == sum(result.per_pass.values())


@settings(max_examples=30, deadline=None)
@given(graphs())
def test_wrong_gradient_minify_is_one_minimal_and_still_fails(case):
    gm, inputs = case
    problem = backward_problem(gm, inputs)
    if fake_accuracy(gm, inputs, "accuracy", problem.doc["config"])[0] != "fail":
        return
    result = minify(problem, run=fake_accuracy, values=fake_values)
    assert result.one_minimal and "torch.relu" in result.ops
    check_minimal(result.model, result, fake_accuracy)
    n = result.initial_nodes + len(result.model.original_outputs)
    assert sum(result.per_pass.get(k, 0) for k in GRAPH_PASSES) <= ddmin_bound(n)
    assert result.queries == sum(result.per_pass.values())


def test_the_oracle_judges_against_eager_where_float64_loses_what_eager_computed():
    """A backward graph compares a recomputed value with a saved float32 one exactly; in
    float64 the two never match and the reference is NaN (0 / 0) where eager is finite.
    same() then passed any compiled value (both errors NaN); now eager alone judges. Before,
    pytorch/pytorch#186799's backward graph "did not reproduce when compiled again"."""
    ref = torch.tensor([0.0, -0.1366, 0.0])
    ref64 = torch.tensor([0.0, float("nan"), 0.0], dtype=torch.float64)
    assert oracle.mismatch(ref, torch.tensor([0.0, 0.0, 0.0]), ref64) is not None
    assert oracle.mismatch(ref, ref.clone(), ref64) is None
    # a usable reference still decides as before: closer to float64 than eager is, passes
    exact = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert oracle.mismatch(torch.tensor([1.001, 2.0]), torch.tensor([1.0, 2.0]), exact) is None


def test_a_backward_graph_loaded_from_aotautograds_cache_is_kept():
    """A second run of a program hits AOTAutograd's cache: its lazy backward info holds the
    serialised graph (`bw_module_fn`), not `bw_module`, and names no compile. The graph and
    its first call's inputs are kept, and the gradient check right after that call writes
    them. Before, nothing was kept and minify said the failure "was not kept with its
    graph"."""
    from compdiag.capture.backward_graphs import BackwardGraphs

    gm, inputs = chain([torch.relu], (6,))
    written = []
    fg = SimpleNamespace(capture=SimpleNamespace(paused_depth=0), recorded=set(),
                         compile_id=lambda: None, _write=lambda *a, **k: written.append(a),
                         kept={}, needs_grad={})
    keeper = BackwardGraphs(fg)
    info = SimpleNamespace(bw_module_fn=lambda: gm)   # CachedAutogradLazyBackwardCompileInfo
    keeper.keep(SimpleNamespace(lazy_backward_info=info), inputs)
    bad = SimpleNamespace(ok=False, output="grad of x", detail={"backward": True, "reason": "r"})
    keeper.on_check(SimpleNamespace(compile_id="0/0", outputs=[bad]))
    assert len(written) == 1
    kept, args, cid, kind = written[0][:4]
    assert kept.gm is gm and torch.equal(args[0], inputs[0]) and (cid, kind) == ("0/0",
                                                                                 "accuracy")
    # a later check with no backward call of its own before it writes nothing more
    keeper.on_check(SimpleNamespace(compile_id="1/0", outputs=[bad]))
    assert len(written) == 1


def test_a_failing_backward_loaded_from_aotautograds_cache_is_kept_and_a_bad_entry_is_not_fatal():
    """The backward failure path read only `bw_module`, so a backward that AOTAutograd's
    cache loaded (a second run: `bw_module_fn`, the serialised graph) and that then failed at
    run time was not kept, and minify had nothing to shrink. It is kept now; a cache entry
    whose graph cannot be rebuilt is a capture warning, and the user's exception stays."""
    from compdiag.capture.backward_graphs import BackwardGraphs

    gm, inputs = chain([torch.relu], (6,))
    written, warned = [], []

    def guarded(where, fn, *args):
        fn(*args)

    fg = SimpleNamespace(capture=SimpleNamespace(paused_depth=0, guarded=guarded,
                                                 warn=lambda w, e: warned.append((w, e))),
                         recorded=set(), _busy=False, compile_id=lambda: "0/0",
                         _write=lambda *a, **k: written.append(a))
    keeper = BackwardGraphs(fg)
    cached = SimpleNamespace(lazy_backward_info=SimpleNamespace(bw_module_fn=lambda: gm))
    keeper.failed(cached, inputs, RuntimeError("boom"), "runtime_error")
    assert len(written) == 1 and written[0][0].gm is gm and written[0][3] == "runtime_error"

    def unreadable():
        raise ValueError("entry from another torch")

    broken = SimpleNamespace(lazy_backward_info=SimpleNamespace(bw_module_fn=unreadable))
    fg.compile_id = lambda: "1/0"
    keeper.failed(broken, inputs, RuntimeError("boom"), "runtime_error")  # does not raise
    assert len(written) == 1 and warned and isinstance(warned[0][1], ValueError)


def test_a_compiles_kept_graphs_are_tried_forward_then_backward_then_with_gradients():
    """probes45e: the backward graph, kept last, was minify's default and passed when compiled
    again (mlml: the forward's outputs differed, the cause; svm: a saved mask differed, only
    the forward with its gradients compared reproduces). An explicit --graph picks in the
    same order within its compile; a record id picks that record."""
    from compdiag.minify.graph import chosen_graph, default_order

    def g(i, cid, role=None):
        return {"id": i, "compile_id": cid, "graph": role}

    graphs = [g(1, "0/0"), g(2, "1/0", "forward+grads"), g(3, "1/0", "backward"), g(4, "1/0")]
    assert [x["id"] for x in default_order(graphs)] == [4, 3, 2]
    assert chosen_graph(graphs, None)["id"] == 4
    assert chosen_graph(graphs, "1/0")["id"] == 4
    assert chosen_graph(graphs, "2")["id"] == 2 and chosen_graph(graphs, "0/0")["id"] == 1
    assert chosen_graph(graphs[1:3], None)["id"] == 3 and chosen_graph([], None) is None


def test_the_oracle_compares_gradients_when_asked():
    """A 'compiler' whose forward is right and whose gradient is half of eager's (it detaches
    one operand of x * x): the outputs alone agree, the gradients do not (`grads`)."""
    gm = torch.fx.symbolic_trace(lambda x: (x * x).sum())

    def halves_the_gradient(g, example_inputs):
        return lambda x: ((x.detach() * x).sum(),) if isinstance(g(x), tuple) \
            else (x.detach() * x).sum()

    x = torch.randn(5)
    assert oracle.run_case(gm, [x], "accuracy", {}, compile_fn=halves_the_gradient,
                           grads=[])[0] == "pass"
    assert oracle.run_case(gm, [x], "accuracy", {}, compile_fn=halves_the_gradient,
                           grads=[0]) == ("fail", ("AccuracyMismatch", ""))
    assert oracle.run_case(gm, [x], "accuracy", {}, compile_fn=lambda g, ex: g,
                           grads=[0]) == ("pass", None)
