"""The reducer on fast synthetic oracles (no compiles): the result still fails, it is
1-minimal, and the number of queries stays within ddmin's worst-case bound."""

from __future__ import annotations

import torch
import torch.fx
from hypothesis import given, settings
from hypothesis import strategies as st

from compdiag.capture.failure_graphs import describe
from compdiag.formats import failure_graph as codec
from compdiag.formats.signature import signature
from compdiag.minify import oracle
from compdiag.minify.driver import minify
from compdiag.minify.graph import Model, Problem
from compdiag.minify.shrinker import SequenceShrinker, find_integer


def ddmin_bound(n: int) -> int:
    """Zeller's worst case for ddmin to reach a 1-minimal result: (n^2 + 3n) / 2."""
    return (n * n + 3 * n) // 2


@given(st.integers(0, 2000))
def test_find_integer_finds_the_threshold_in_log_queries(t):
    calls = []

    def f(k):
        calls.append(k)
        return k <= t

    assert find_integer(f) == t
    assert len(calls) <= 4 + 2 * max(t, 1).bit_length() + 2


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 40), data=st.data())
def test_monotone_oracle_gives_exactly_the_culprits(n, data):
    culprits = set(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=min(n, 5))))
    r = SequenceShrinker(tuple(range(n)), lambda v: culprits <= set(v))
    result = r.run()
    assert set(result) == culprits
    assert r.calls <= ddmin_bound(n)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_arbitrary_oracle_result_fails_and_is_one_minimal(n, seed, data):
    """A non-monotone oracle (a hash of the subset decides, beyond a required core)."""
    core = set(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=3)))

    def fails(v):
        return core <= set(v) and (len(v) == n or hash((seed, tuple(v))) % 3 != 0)

    r = SequenceShrinker(tuple(range(n)), fails)
    result = r.run()
    assert fails(result)
    for i in range(len(result)):  # 1-minimal: no single item can go
        assert not fails(result[:i] + result[i + 1:])
    assert r.calls <= ddmin_bound(n)


def test_reducer_memoises_and_only_accepts_simpler_values():
    seen = []
    r = SequenceShrinker((1, 2, 3), lambda v: seen.append(v) or 2 in v)
    assert r.consider((2,)) and r.current == (2,)
    assert not r.consider((1, 2))          # not simpler than (2,): never queried
    assert r.query((3,)) is False and r.query((3,)) is False
    assert seen == [(2,), (3,)]
    assert r.calls == 2 and r.cache_hits == 1


class RecordingShrinker(SequenceShrinker):
    """A SequenceShrinker that keeps every value it accepted, in order."""

    def __init__(self, *args, **kwargs):
        self.accepted = []
        super().__init__(*args, **kwargs)

    def changed(self):
        self.accepted.append(self.current)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 24), seed=st.integers(0, 2**32 - 1),
       cap=st.none() | st.integers(0, 40), core=st.sets(st.integers(0, 23), max_size=3))
def test_shrinker_counts_unique_queries_and_verifies_every_accepted_step(n, seed, cap, core):
    """On a fake predicate: `calls` is the number of predicate calls, no value is asked twice,
    the cap holds, every query is counted under some pass, and every accepted value is one
    the predicate said yes to, each strictly simpler than the one before."""
    answers = {}

    def predicate(v):
        assert v not in answers, f"{v} asked twice"
        answers[v] = core & set(range(n)) <= set(v) and hash((seed, v)) % 3 != 0
        return answers[v]

    initial = tuple(range(n))
    r = RecordingShrinker(initial, predicate, max_calls=cap)
    result = r.run()
    assert r.calls == len(answers)
    assert cap is None or r.calls <= cap
    assert sum(r.per_pass.values()) == r.calls
    assert r.changes == len(r.accepted)
    assert result == (r.accepted[-1] if r.accepted else initial)
    previous = initial
    for value in r.accepted:
        assert answers[value] is True
        assert r.left_is_better(value, previous)
        previous = value
    # asking again changes nothing and calls nothing
    for value in list(answers):
        assert r.query(value) == answers[value]
        assert not r.consider(value) or value == r.current
    assert r.calls == len(answers)


# -- the graph passes on a fake compiler ---------------------------------------------------------
GRAPH_PASSES = ("truncate tail", "truncate head", "cut nodes", "drop outputs")
OPS = [torch.sin, torch.cos, torch.relu, torch.tanh, torch.neg]


@st.composite
def graphs(draw):
    """A random DAG of pointwise ops over one or two inputs, with one to three outputs."""
    g = torch.fx.Graph()
    n_in = draw(st.integers(1, 2))
    values = [g.placeholder(f"x{i}") for i in range(n_in)]
    for _ in range(draw(st.integers(1, 12))):
        if len(values) > 1 and draw(st.booleans()):
            a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
            values.append(g.call_function(torch.add, (a, b)))
        elif draw(st.booleans()):
            values.append(g.call_method("mul", (draw(st.sampled_from(values)), 2.0)))
        else:
            values.append(g.call_function(draw(st.sampled_from(OPS)),
                                          (draw(st.sampled_from(values)),)))
    computed = values[n_in:]
    outs = draw(st.lists(st.sampled_from(computed), min_size=1, max_size=3, unique=True))
    if draw(st.booleans()) and computed[-1] not in outs:
        outs.append(computed[-1])
    g.output(tuple(outs))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    shape = draw(st.sampled_from([(4,), (3, 5), (16, 16)]))
    return gm, [torch.randn(shape) for _ in range(n_in)]


def problem_of(gm, inputs, kind, sig):
    doc, tensors = describe(gm, inputs, kind=kind, stage="test", exc_type=sig[0],
                               message=sig[1], sig=sig)
    doc["config"] = {"cpp.inject_relu_bug_TESTING_ONLY": kind}
    return Problem(0, "0/0", 0, doc, list(inputs), {})


def fake_compile_error(gm, inputs, kind, config, **kw):
    """'Inductor' that fails to compile any graph holding relu while the injector is set."""
    bad = config.get("cpp.inject_relu_bug_TESTING_ONLY") and any(
        n.target is torch.relu for n in gm.graph.nodes)
    return ("fail", ("CppCompileError", "C++ compile error")) if bad else ("pass", None)


def fake_accuracy(gm, inputs, kind, config, **kw):
    """'Inductor' whose relu computes x + 1 (the accuracy injector), judged against eager by
    the real oracle: the bug only counts where it reaches an output."""
    ref = gm(*inputs)
    buggy = config.get("cpp.inject_relu_bug_TESTING_ONLY")

    class Compiled(torch.fx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is torch.relu and buggy:
                return args[0] + 1
            return super().call_function(target, args, kwargs)

    res = Compiled(gm).run(*inputs)
    return ("fail", ("AccuracyMismatch", "")) if oracle.mismatch(ref, res, None) else \
        ("pass", None)


def check_minimal(model, result, fake):
    c = result.candidate
    built = model.build(c)
    assert fake(built.gm, built.inputs, "", built.config)[0] == "fail"
    for n in model.nodes_of(c):
        smaller = model.without_nodes(c, [n])
        if smaller is not None:
            b = model.build(smaller)
            assert fake(b.gm, b.inputs, "", b.config)[0] != "fail", f"{n} could still be cut"


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_graph_minify_compile_error_ends_at_one_relu(case):
    gm, inputs = case
    if not any(n.target is torch.relu for n in gm.graph.nodes):
        return
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    result = minify(problem, run=fake_compile_error)
    assert result.ops == ["torch.relu"]
    assert result.one_minimal
    assert len(result.candidate.outputs) == 1 and len(result.built.inputs) == 1
    assert result.built.config == problem.doc["config"]
    check_minimal(result.model, result, fake_compile_error)
    n = result.initial_nodes + len(result.model.original_outputs)
    graph_queries = sum(result.per_pass.get(k, 0) for k in GRAPH_PASSES)
    assert graph_queries <= ddmin_bound(n)
    # every unique query is one compile (none is invalid here), counted under its pass
    assert result.queries == result.checks == sum(result.per_pass.values())


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_graph_minify_accuracy_is_one_minimal_and_still_fails(case):
    gm, inputs = case
    problem = problem_of(gm, inputs, "accuracy", ("AccuracyMismatch", ""))
    if fake_accuracy(gm, inputs, "accuracy", problem.doc["config"])[0] != "fail":
        return
    result = minify(problem, run=fake_accuracy)
    assert result.one_minimal
    assert "torch.relu" in result.ops
    check_minimal(result.model, result, fake_accuracy)
    n = result.initial_nodes + len(result.model.original_outputs)
    assert sum(result.per_pass.get(k, 0) for k in GRAPH_PASSES) <= ddmin_bound(n)
    # inputs shrink to something the repro can write inline
    assert sum(t.numel() for t in result.built.inputs) <= 64 or result.candidate.zeroed


def test_failure_graph_round_trips_through_data():
    g = torch.fx.Graph()
    x = g.placeholder("x")
    y = g.call_function(torch.ops.aten.add.Tensor, (x, x))
    z = g.call_method("view", (y, (-1,)))
    w = g.call_function(torch.sum, (z,), {"dtype": torch.float64})
    g.output((w, z))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    x0 = torch.randn(2, 3)
    doc, tensors = describe(gm, [x0], kind="compile_error", stage="t", exc_type="E",
                               message="m", sig=("E", "m"))
    import json
    rebuilt = codec.nodes_to_graph(json.loads(json.dumps(doc))["nodes"], {})
    for a, b in zip(gm(x0), rebuilt(x0)):
        assert torch.equal(a, b)
    (role, t), = tensors
    back = codec.tensor_from_bytes(codec.tensor_bytes(t), "float32", [2, 3], [3, 1])
    assert torch.equal(back, x0)


def test_unknown_targets_are_refused_not_imported():
    import pytest

    for name in ("os.system", "builtins.eval", "torch.__class__", "subprocess.run"):
        with pytest.raises(codec.UnsupportedGraph):
            codec.resolve_target(name)


def test_signature_strips_paths_addresses_and_numbers():
    e1 = RuntimeError("bad value 3.5 at 0x7f00aa in /tmp/torchinductor_x/ab/cxyz.py:12")
    e2 = RuntimeError("bad value 17 at 0x1234 in /tmp/other/path.py:99")
    assert signature(e1) == signature(e2)
    assert signature(e1) != signature(ValueError(str(e1)))


def test_repro_writes_small_inputs_inline_and_large_ones_as_raw_bytes(tmp_path, monkeypatch):
    """Both scripts' inputs equal the minimal graph's (raw bytes beside them when large,
    bool/int inline): the checker's make_inputs() (importing it runs nothing), and the plain
    repro's module-level inputs, run with torch.compile standing aside."""
    import importlib.util
    import runpy

    from compdiag.minify.repro import write

    g = torch.fx.Graph()
    x, m, i = g.placeholder("x"), g.placeholder("m"), g.placeholder("i")
    y = g.call_function(torch.relu, (x,))
    z = g.call_function(torch.where, (m, y, x))
    w = g.call_function(torch.add, (z, i))
    g.output((w,))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    inputs = [torch.randn(30, 3).t(),                   # (3, 30), not contiguous
              torch.rand(3, 1) > 0.5, torch.arange(3).reshape(3, 1)]

    def needs_everything(gm_, ins, kind, config, **kw):
        # fails only with all three inputs at full size: nothing can be cut or shrunk
        ok = [n.op for n in gm_.graph.nodes].count("placeholder") == 3 and \
            ins[0].shape == (3, 30) and bool(ins[0].abs().sum() > 0) and config
        return ("fail", ("E", "m")) if ok else ("pass", None)

    problem = problem_of(gm, inputs, "compile_error", ("E", "m"))
    result = minify(problem, run=needs_everything)
    assert result.one_minimal and len(result.candidate.kept) == 3
    path = tmp_path / "repro.py"
    written = write(result, path)
    names = [p.name for p in written]
    assert names[0] == "repro.py" and "repro.bin" in names and "repro_check.py" in names
    assert any(p.suffix == ".bin" and p.parent.name == "repro_check_inputs" for p in written)
    spec = importlib.util.spec_from_file_location("repro_under_test", tmp_path / "repro_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: fn)
    plain = runpy.run_path(str(path))
    for got in (mod.make_inputs(), [plain[n] for n in ("x", "m", "i")]):
        for a, b in zip(got, result.built.inputs):
            assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
            assert a.stride() == b.stride()
    for p in written:
        if p.suffix == ".py":
            assert "import pickle" not in p.read_text() and "torch.load" not in p.read_text()


# -- fewer compiles: no re-compile of the captured graph first, speculative shapes, the op a
# -- failure names first ----------------------------------------------------------------------
def chain(ops, shape=(16, 16)):
    g = torch.fx.Graph()
    v = g.placeholder("x")
    for op in ops:
        v = g.call_function(op, (v,))
    g.output((v,))
    return torch.fx.GraphModule(torch.nn.Module(), g), [torch.randn(shape)]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), data=st.data())
def test_one_culprit_in_a_chain_costs_about_two_log_n_compiles_and_is_verified(n, data):
    from compdiag.minify.driver import GraphShrinker

    k = data.draw(st.integers(0, n - 1))
    ops = [torch.sin] * n
    ops[k] = torch.relu
    gm, inputs = chain(ops)
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    shrinker = GraphShrinker(problem, run=fake_compile_error)
    result = shrinker.shrink()
    assert result.ops == ["torch.relu"] and result.one_minimal
    # the result was itself compiled and failed (nothing is assumed of the captured graph)
    assert shrinker.seen[shrinker.key(result.candidate)] is True
    # the speculative 1x1 shapes were taken with the first cut: the input is inline-sized
    assert sum(t.numel() for t in result.built.inputs) == 1
    assert "shrink shapes" not in result.per_pass, result.per_pass
    assert result.queries <= 2 * max(n - 1, 1).bit_length() + 1, result.per_pass


def test_two_op_graph_with_a_large_input_minifies_in_one_compile():
    gm, inputs = chain([torch.relu, torch.cos], (20, 20))
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    result = minify(problem, run=fake_compile_error)
    assert result.ops == ["torch.relu"] and result.queries == 1
    assert list(result.built.inputs[0].shape) == [1, 1]


def test_speculative_shapes_that_hide_the_bug_still_end_one_minimal():
    """A bug that needs the input's real size: every speculative cut passes, the captured
    graph is asked, and the ordinary passes still reach the culprit."""
    gm, inputs = chain([torch.sin, torch.relu, torch.cos], (20, 20))
    problem = problem_of(gm, inputs, "compile_error", ("E", "m"))

    def needs_size(gm_, ins, kind, config, **kw):
        bad = any(n.target is torch.relu for n in gm_.graph.nodes) and ins[0].numel() > 100
        return ("fail", ("E", "m")) if bad else ("pass", None)

    result = minify(problem, run=needs_size)
    assert result.ops == ["torch.relu"] and result.one_minimal
    assert result.per_pass.get("reproduce") == 2   # with 1x1 inputs, then as captured
    assert needs_size(result.built.gm, result.built.inputs, "", {})[0] == "fail"


def test_a_captured_graph_that_no_longer_fails_is_refused_in_one_line():
    import pytest

    from compdiag.minify.graph import MinifyError

    gm, inputs = chain([torch.sin, torch.relu, torch.cos])
    problem = problem_of(gm, inputs, "compile_error", ("E", "m"))
    with pytest.raises(MinifyError, match="does not reproduce E when compiled again"):
        minify(problem, run=lambda *a, **k: ("pass", None))


def test_the_node_a_dynamo_failure_names_is_tried_alone_first():
    gm, inputs = chain([torch.sin, torch.cos, torch.relu, torch.tanh], (4,))
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    problem.doc["failing_node"] = "relu"
    result = minify(problem, run=fake_compile_error)
    assert result.ops == ["torch.relu"] and result.one_minimal
    assert result.queries == 1 and result.per_pass == {"failing op": 1}


def test_the_op_an_inductor_error_names_is_tried_alone_first():
    gm, inputs = chain([torch.sin, torch.cos, torch.relu, torch.tanh, torch.neg], (4,))
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    problem.doc["message"] = "LoweringException: boom\n  target: aten.relu.default\n  args[0]: x"
    result = minify(problem, run=fake_compile_error)
    assert result.ops == ["torch.relu"] and result.queries == 1
    # an op named by no node, or by several, changes nothing
    gm, inputs = chain([torch.sin, torch.relu, torch.relu], (4,))
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    problem.doc["message"] = "target: aten.relu.default"
    assert minify(problem, run=fake_compile_error).per_pass.get("failing op") is None


def test_a_cap_of_one_query_still_verifies_the_captured_graph():
    gm, inputs = chain([torch.sin, torch.relu, torch.cos])
    problem = problem_of(gm, inputs, "compile_error", ("CppCompileError", "C++ compile error"))
    result = minify(problem, run=fake_compile_error, max_queries=1)
    assert result.queries == 1 and result.per_pass == {"reproduce": 1}
    assert len(result.candidate.kept) == 3 and not result.one_minimal


def test_signature_unwraps_dynamo_fake_tensor_errors_to_torchs_own():
    """Dynamo raises TorchRuntimeError inside `except` over an Unsupported `from` the real
    error: the failure is the real one. A wrapper with no cause is itself the error."""
    class TorchRuntimeError(Exception):
        pass

    class Unsupported(Exception):
        pass

    try:
        try:
            try:
                raise RuntimeError("There was no fake impl registered for <CustomOpDef(a::b)>")
            except RuntimeError as e:
                raise Unsupported("RuntimeError when making fake tensor call") from e
        except Unsupported:
            raise TorchRuntimeError("RuntimeError when making fake tensor call")  # noqa: B904
    except TorchRuntimeError as exc:
        outer = exc
    assert signature(outer) == ("RuntimeError",
                                "There was no fake impl registered for <CustomOpDef(a::b)>")
    assert signature(Unsupported("Failed to trace builtin operator"))[0] == "Unsupported"


def test_plain_repro_runs_the_minimal_graph_with_its_constants(tmp_path, monkeypatch):
    """repro.py's `f` computes what the minimal graph computes: a get_attr constant, an
    operator call, a NaN input, a placeholder whose name is one the script uses itself."""
    import operator
    import runpy

    from compdiag.minify.repro import write

    g = torch.fx.Graph()
    x, f_ = g.placeholder("x"), g.placeholder("f")
    c = g.get_attr("weight")
    y = g.call_function(operator.mul, (x, c))
    z = g.call_function(torch.relu, (y,))
    w = g.call_function(torch.add, (z, f_))
    g.output((w,))
    root = torch.nn.Module()
    root.register_buffer("weight", torch.tensor([2.0, 3.0]))
    gm = torch.fx.GraphModule(root, g)
    inputs = [torch.tensor([float("nan"), -1.5]), torch.tensor([0.25, 0.5])]

    def needs_everything(gm_, ins, kind, config, **kw):
        ok = sum(n.op in ("call_function", "get_attr") for n in gm_.graph.nodes) == 4
        return ("fail", ("E", "m")) if ok else ("pass", None)

    problem = problem_of(gm, inputs, "compile_error", ("E", "m"))
    problem.attrs = {"weight": root.weight}
    problem.doc["message"] = 'E: the """real""" message\nsecond line'
    result = minify(problem, run=needs_everything)
    path = tmp_path / "repro.py"
    write(result, path)
    text = path.read_text()
    assert len(text.splitlines()) <= 40, text
    assert "the '''real''' message" in text and "second line" in text
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: fn)
    ns = runpy.run_path(str(path))
    assert result.built.input_names == ["x", "f"] and "def f(x, in_f):" in text
    got = ns["f"](ns["x"], ns["in_f"])
    want = result.built.gm(*result.built.inputs)
    assert torch.equal(got[0].nan_to_num(7.0), want[0].nan_to_num(7.0))


def test_a_torch_func_graph_is_kept_as_data_and_rebuilt_to_run_the_same() -> None:
    """probes26: a vmap(grad(...)) graph could not be kept for minify ("cannot name the call
    target lazy_load_decompositions"): Dynamo traces torch.func as calls into torch's functorch
    plumbing (enter and leave a transform level, wrap and unwrap its tensors), outside the
    allow-listed namespaces. Now those torch modules are named too, and the rebuilt graph runs
    to the same result."""
    import json

    import torch

    from compdiag.formats import failure_graph as codec

    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm

    def loss(w, x):
        return ((x @ w) ** 2).sum()

    torch._dynamo.reset()
    w, x = torch.randn(3, 2), torch.randn(4, 3)
    torch.compile(torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0)), backend=keep)(w, x)
    torch._dynamo.reset()
    (gm,) = graphs
    nodes = codec.graph_to_nodes(gm)
    assert any("lazy_load_decompositions" in str(n["target"]) for n in nodes)
    rebuilt = codec.nodes_to_graph(json.loads(json.dumps(nodes)), {})
    expect, got = gm(w, x), rebuilt(w, x)
    assert all(torch.equal(a, b) for a, b in zip(expect, got))


def test_a_graph_that_raises_uncompiled_is_refused_as_its_own_check_not_eager():
    """probes38j dice_assert_skip_empty: the program's `assert` became `_assert_async` in the
    graph, which raised RuntimeError; eager raised AssertionError, which the program caught.
    Minify's refusal (which report quotes) said "the failing graph fails in eager too", the
    opposite of explain's diagnosis. It now says the graph's own check raised, run uncompiled."""
    import pytest

    from compdiag.minify.graph import MinifyError

    g = torch.fx.Graph()
    x = g.placeholder("x")
    s = g.call_function(torch.ops.aten.sum.default, (x,))
    ok = g.call_function(torch.ops.aten.gt.Scalar, (s, 0))
    g.call_function(torch.ops.aten._assert_async.msg, (ok, "empty target mask"))
    g.output((g.call_function(torch.sigmoid, (x,)),))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    problem = problem_of(gm, [torch.zeros(4)], "runtime_error",
                         ("RuntimeError", "empty target mask"))
    with pytest.raises(MinifyError) as info:
        Model(problem)
    text = str(info.value)
    assert "empty target mask" in text and "without compiling" in text
    assert "in eager" not in text and "graph's own" in text


def test_a_graph_that_returns_the_input_it_wrote_in_place_is_minified_on_its_writes():
    """probes46c acc_heat_rod_mirror_inplace (pytorch#198270): the graph Dynamo kept returns
    its input `u`, which in-place ops wrote; minify said "the failing graph returns no tensor
    computed by the graph". The last write is the output, and an op that reads `u` after a
    write keeps that write (else the first candidate dropped every write but the last, and
    "did not reproduce"). A 'compiler' that gets index_put_'s accumulation wrong shrinks to
    the writes it needs."""
    def step(u, idx, v):
        u.index_put_((idx,), v, accumulate=True)
        u.add_(u.flip(0)).mul_(0.5)
        return (u,)

    gm = torch.fx.symbolic_trace(step)
    inputs = [torch.zeros(6), torch.tensor([1, 1]), torch.tensor([1.0, 2.0])]
    problem = problem_of(gm, inputs, "accuracy", ("AccuracyMismatch", ""))
    model = Model(problem)
    assert model.original_outputs == ("mul_",)
    assert {"index_put_", "flip", "add_", "mul_"} <= set(model.initial().kept)

    def no_accumulate(g, ins, kind, config, **kw):
        def run(*args):
            class Wrong(torch.fx.Interpreter):
                def call_method(self, target, a, k):
                    if target == "index_put_":
                        return a[0].index_put_(*a[1:], accumulate=False)
                    return super().call_method(target, a, k)
            return Wrong(g).run(*args)
        ref = g(*[x.clone() for x in ins])
        res = run(*[x.clone() for x in ins])
        return ("fail", ("AccuracyMismatch", "")) if oracle.mismatch(ref, res, None) \
            else ("pass", None)

    result = minify(problem, run=no_accumulate)
    assert "Tensor.index_put_" in result.ops and result.one_minimal
