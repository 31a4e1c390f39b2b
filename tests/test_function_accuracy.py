"""The compiled function whole against eager (capture/function_accuracy.py, issue 29 §4).

set20b's first run, blind: two silent correctness bugs of torch.compile's tracing
(pytorch#192985, an autograd.Function's custom `jvp` dropped under torch.func.jvp; #191449, a
`resize_()` on a view across a graph break) passed `--check-accuracy` with "no problems found",
because each graph matched its own eager replay: the graphs were wrong, not a kernel. The check
now runs the original function in eager after the compiled call and compares, only where that
replay cannot change the program's state. Real Dynamo compiles with the eager backend (no
Inductor, a second or two each)."""

from __future__ import annotations

import pytest
import torch

from compdiag.capture.accuracy import AccuracyChecker
from compdiag.capture.accuracy_compare import Tolerance
from compdiag.capture.function_accuracy import FunctionChecker, replay_refusal


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.round(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, dx):
        return dx


def sensitivity(w, d):
    return torch.func.jvp(lambda t: RoundSTE.apply(t * 4) / 4, (w,), (d,))[1]


def test_a_function_traced_wrong_is_found_though_its_graph_matches(checks) -> None:
    w, d = torch.randn(6), torch.randn(6)
    eager = sensitivity(w, d)
    out = torch.compile(sensitivity, backend="eager")(w, d)
    if torch.allclose(out, eager):
        pytest.skip("this torch traces the custom jvp right (pytorch#192985 fixed)")
    graph_checks = [c for c in checks if not any(
        o.detail.get("verdict") == "traced_wrong" for o in c.outputs)]
    assert graph_checks and all(c.ok for c in graph_checks), graph_checks
    (whole,) = [c for c in checks if c not in graph_checks]
    (o,) = whole.outputs
    assert not o.ok and o.detail["function"] == "sensitivity"
    assert o.detail["transforms"] == ["jvp"]  # said as "under torch.func.jvp"
    assert whole.compile_id is None or isinstance(whole.compile_id, str)


def test_a_right_function_is_checked_and_nothing_is_reported(checks, capsys) -> None:
    def shout(x):
        print("inside")
        return x.sin() * 2

    out = torch.compile(shout, backend="eager")(torch.randn(4))
    assert out.shape == (4,)
    assert all(c.ok for c in checks), checks
    # the replay's print went nowhere: the program printed once (the compiled call's break)
    assert capsys.readouterr().out.count("inside") == 1


COUNTER = [0]
STATE = torch.zeros(3)


def test_a_function_that_could_change_state_is_not_replayed(checks) -> None:
    """Replaying must never change what the program computes: a function storing a global or
    an item, drawing random numbers or reaching a module is compiled and run once only."""
    def stores(x):
        COUNTER[0] += 1
        return x + 1

    def draws(x):
        return x + torch.rand(3)

    # a module whose call updates state (BatchNorm in training: its running statistics); a
    # module whose call changes nothing is replayed (probes36c, below)
    model = torch.nn.BatchNorm1d(3)

    def reaches(x):
        return model(x)

    x = torch.ones(3)
    assert replay_refusal(stores, (x,), {}).startswith("it stores state")
    assert replay_refusal(draws, (x,), {}) == "it draws random numbers"

    def flips(x):
        import random
        return x.flip(0) if random.random() < 0.5 else x

    # Python's stream: a replay would move the program's own random numbers
    assert replay_refusal(flips, (x,), {}) == "it draws random numbers"
    assert replay_refusal(reaches, (x,), {}) == "it reaches a BatchNorm1d"
    torch.compile(stores, backend="eager")(x)
    assert COUNTER == [1]


def test_a_library_object_the_call_mutates_is_replayed_on_a_copy(checks) -> None:
    """probes43c hf_llama_temperature_anneal_ok, blind: the replay ran the function on the
    program's own HF DynamicCache, whose update (library code, no mutator name in the user's
    function) appended the keys and values a second time; the program's samples changed
    under --check-accuracy and explain blamed Dynamo. Any mutable argument the program owns
    is copied for the replay, whatever its class (here the standard library's array)."""
    import array

    def step(x, buf):
        y = x * 2
        buf.fromlist([1.0])
        return y + len(buf)

    buf = array.array("d")
    out = torch.compile(step, backend="eager")(torch.ones(3), buf)
    assert len(buf) == 1 and torch.equal(out, torch.full((3,), 3.0))
    assert not [o for c in checks for o in c.outputs if not o.ok]


def test_a_global_tensor_written_in_place_is_put_back_after_the_replay(checks) -> None:
    def accumulate(x):
        STATE.add_(x)
        return STATE * 2

    before = STATE.clone()
    torch.compile(accumulate, backend="eager")(torch.ones(3))
    # once, by the compiled call; the replay's write was undone
    assert torch.equal(STATE, before + 1), STATE


def test_a_wrong_kernel_is_the_graphs_diagnosis_not_a_wrong_trace(checks) -> None:
    """A backend whose compiled graph computes other numbers: the graph's own check fails,
    and the function's result differs as its consequence; no traced_wrong verdict is added
    (the acc_ corpus cases' injected bugs stay graph diagnoses)."""
    def off_by_one(gm, example_inputs):
        def run(*args):
            return [o + 1 for o in gm(*args)]
        return run

    def f(x):
        return x.cos()

    torch.compile(f, backend=off_by_one)(torch.randn(4))
    assert any(not c.ok for c in checks), checks
    assert not any(o.detail.get("verdict") == "traced_wrong" for c in checks for o in c.outputs)


W = torch.ones(3, requires_grad=True)


def test_a_function_whose_replay_would_accumulate_gradients_is_not_replayed(checks) -> None:
    """A backward inside the function accumulates into a global leaf's `.grad`, which a
    replay could not put back; a function asking whether it is compiled differs by design."""
    def step(x):
        loss = (W * x).sum()
        loss.backward()
        return loss.detach()

    def asks(x):
        return x * 2 if torch.compiler.is_compiling() else x

    x = torch.ones(3)
    assert replay_refusal(step, (x,), {}) == "it calls backward"
    assert replay_refusal(asks, (x,), {}) == "it calls is_compiling"
    torch.compile(step, backend="eager")(x)
    assert torch.equal(W.grad, torch.ones(3)), W.grad  # once


def test_a_compiled_call_that_raises_leaves_the_checker_ready(checks) -> None:
    def bad(x):
        return x @ x  # a 1-d @ 1-d is fine; a shape mismatch below raises

    with pytest.raises(RuntimeError):
        torch.compile(bad, backend="eager")(torch.ones(2, 3))

    # the next function is still checked (the checker was not left busy by the raise)
    w, d = torch.randn(6), torch.randn(6)
    if torch.allclose(torch.compile(sensitivity, backend="eager")(w, d), sensitivity(w, d)):
        pytest.skip("this torch traces the custom jvp right (pytorch#192985 fixed)")
    assert any(o.detail.get("verdict") == "traced_wrong" for c in checks for o in c.outputs)


RUNNING = torch.zeros(3)
LOSSES: list = []


def test_the_programs_state_is_never_changed_by_the_replay(checks) -> None:
    """probes26 (acc_global_running_stat, acc_loss_history_logging, acc_dataclass_state_bn,
    acc_nested_kwargs_returns): a running statistic updated in place was replayed from the
    updated value (a false traced_wrong); a list of losses got an extra item and a logger an
    extra line; a BatchNorm reached through a dataclass was run again; an inner compiled
    function compiled once more during the replay. None of them may happen."""
    from dataclasses import dataclass

    def normalise(x):
        RUNNING.mul_(0.9).add_(x.mean(0) * 0.1)
        return (x - RUNNING) * 2

    torch.compile(normalise, backend="eager")(torch.randn(4, 3))
    assert not [o for c in checks for o in c.outputs if o.detail.get("verdict") == "traced_wrong"]

    def record(x):
        loss = (x ** 2).mean()
        LOSSES.append(loss.detach())
        return loss

    x = torch.ones(3)
    assert replay_refusal(record, (x,), {}) == "it calls append"

    @dataclass
    class State:
        net: torch.nn.Module

    state = State(torch.nn.BatchNorm1d(3))
    assert replay_refusal(lambda y: state.net(y), (x,), {}) == "it reaches a BatchNorm1d"
    assert replay_refusal(lambda s, y: s.net(y), (state, x), {}).startswith(
        "an argument reaches a BatchNorm1d")

    inner_calls = []

    def inner(y):
        return y.sin()

    def spy(gm, example_inputs):
        inner_calls.append(1)
        return gm.forward

    compiled_inner = torch.compile(inner, backend=spy)

    def outer(y):
        return compiled_inner(y) * 2

    torch.compile(outer, backend="eager")(torch.ones(3))
    # Dynamo inlined inner into outer's graph; the replay ran both eagerly: inner never compiled
    assert inner_calls == [], inner_calls


def test_rounding_is_judged_at_the_precision_the_value_was_computed_in() -> None:
    """probes26 false positives of the graph check: a float32 loss computed under bfloat16
    autocast was "ill-conditioned ~281x" against float32's rounding step; a bias gradient that
    is zero in exact arithmetic (before a BatchNorm) was "amplified ~8e15x" against its
    4e-17 reference. Neither is a verdict."""
    from compdiag.capture.accuracy_compare import numeric_verdict

    errs = {"eager_rel": 3.3e-5, "compiled_rel": 3.0e-5, "eager_rmse": 1e-5,
            "compiled_rmse": 9e-6, "scale": 0.3}
    assert numeric_verdict(True, True, errs, 1e-4, torch.float32).get("verdict") == \
        "ill_conditioned"  # in float32 arithmetic, 281x its rounding step
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert "verdict" not in numeric_verdict(True, True, errs, 1e-4, torch.float32)
    zero = {"eager_rel": 2.4e7, "compiled_rel": 3.1e7, "eager_rmse": 1e-9,
            "compiled_rmse": 1.3e-9, "scale": 4e-17}
    assert "verdict" not in numeric_verdict(True, True, zero, 1e-4, torch.float32)


def test_a_torch_func_graph_is_replayed_with_grad_mode_its_own() -> None:
    """probes26 acc_func_transforms_opt: the graph of `vmap(grad(f))` replayed under no_grad
    returned zeros, and the graph check called the compiled (right) result a miscompile."""
    from compdiag.capture.accuracy import _eager, transforms_in

    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def per_sample(w, x):
        return torch.func.vmap(torch.func.grad(lambda w, x: (w * x).sin().sum()),
                               in_dims=(None, 0))(w, x)

    torch._dynamo.reset()
    w, x = torch.randn(3), torch.randn(4, 3)
    out = torch.compile(per_sample, backend=keep)(w, x)
    torch._dynamo.reset()
    (gm,) = graphs
    assert transforms_in(gm) == ["vmap", "grad"]
    args = [a for a in (w, x)]
    replayed = _eager(gm, args, torch.random.get_rng_state())
    assert torch.allclose(replayed[0], out), (replayed, out)


def test_a_function_eager_refuses_is_a_verdict_where_eager_raised(checks) -> None:
    """set21b's data_write_under_grad (pytorch#149911): a `.data` write to the argument of a
    function under a torch.func transform raises in eager and not compiled. Before, the
    replay was refused ("it stores state (STORE_ATTR data)"; jacrev's own code was scanned as
    the user's too, and refused for its lists), and a replay that raised was dropped in
    silence. Now the write to an argument's tensor attribute is replayed on the clone, and
    eager raising where compiled returned is verdict `traced_accepts` at the line that raised."""
    floor = torch.full((4,), 0.1)

    def project(x):
        x.data = torch.maximum(x, floor)
        return (x ** 3).sum()

    jac = torch.func.jacrev(project)
    assert replay_refusal(project, (torch.ones(4),), {}) is None
    assert replay_refusal(jac, (torch.ones(4),), {}) is None
    out = torch.compile(jac, backend="eager")(torch.randn(4))
    assert out.shape == (4,)
    (whole,) = [c for c in checks if any(o.detail.get("verdict") == "traced_accepts"
                                         for o in c.outputs)]
    (o,) = whole.outputs
    assert not o.ok and ".data" in o.detail["eager_error"]
    frame = whole.divergent_node["user_frame"]
    assert frame["line"] == "x.data = torch.maximum(x, floor)"

    class Box:
        value = None

    def stores_on_an_object(box, x):
        box.value = x
        return x

    # an object of the program's own class given as an argument is replayed on a deep copy
    # (capture/object_state.py); one the function reaches as a global is the program's state
    assert replay_refusal(stores_on_an_object, (Box(), torch.ones(1)), {}) is None
    shared = Box()

    def stores_on_a_global(x):
        shared.value = x
        return x

    assert replay_refusal(stores_on_a_global, (torch.ones(1),), {}).startswith(
        "it stores state")


def test_a_float32_output_of_bfloat16_arithmetic_is_judged_at_bfloat16s_step() -> None:
    """probes26's acc_bf16_weights_upcast: `h = x.bfloat16() @ W + B; return x + h.float()`.
    The float64 reference kept the graph's casts (a reference in bfloat16's precision, of
    float32's dtype: no verdict), and the float32 output was judged at float32's tolerance:
    eager's own bfloat16 rounding read as "computed wrongly by matmul". Now the reference
    computes in float64 throughout, and the output is judged at the coarsest dtype it is
    computed through."""
    from compdiag.capture.accuracy import _gm64
    from compdiag.capture.accuracy_compare import computed_in

    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm

    W = torch.randn(8, 8).bfloat16()

    def adapter(x):
        h = x.bfloat16() @ W
        return x + h.float(), x * 2

    torch._dynamo.reset()
    torch.compile(adapter, backend=keep)(torch.randn(4, 8))
    (gm,) = graphs
    assert computed_in(gm) == [torch.bfloat16, torch.float32]
    args = [torch.randn(p.meta["example_value"].shape, dtype=torch.float64)
            for p in gm.graph.nodes if p.op == "placeholder"]
    assert all(o.dtype == torch.float64 for o in _gm64(gm)(*args))


class _Settings:
    temperature = 1.0


SETTINGS = _Settings()


@torch.compiler.assume_constant_result
def _current_temperature():
    return SETTINGS.temperature


def _scores(logits):
    return torch.softmax(logits / _current_temperature(), dim=-1)


def test_a_constant_baked_in_that_changes_later_is_caught_on_a_later_call(checks) -> None:
    """Found on main with a new-user program: a function marked assume_constant_result whose
    result changed after the compile; the compiled softmax kept the first temperature
    silently (no recompile, no warning) and `--check-accuracy` said "no problems found", since
    only the first call was checked. Calls 2, 4, 8, ... are checked again: call 2 differs
    while running the first call's graph only, verdict changed_after_compile."""
    SETTINGS.temperature = 1.0
    try:
        fn = torch.compile(_scores, backend="eager")
        x = torch.tensor([[1.0, 2.0, 3.0]])
        fn(x)
        assert not checks or all(c.ok for c in checks)
        SETTINGS.temperature = 10.0
        fn(x)
    finally:
        SETTINGS.temperature = 1.0
    (whole,) = [c for c in checks if not c.ok]
    (o,) = whole.outputs
    assert o.detail["verdict"] == "changed_after_compile" and o.detail["call"] == 2
    assert o.detail["function"] == "_scores"


_WARMUP = {"step": 0}


@torch.compiler.assume_constant_result
def _warmup_scale():
    return min(1.0, (_WARMUP["step"] + 1) / 4)


def _sgd_update(params, grads, lr):
    s = _warmup_scale()
    for p, g in zip(params, grads):
        p.sub_(g * (lr * s))


def test_an_in_place_update_that_returns_nothing_is_compared_by_its_arguments(checks) -> None:
    """probes35a warmup_assume_constant, blind: a compiled SGD update (returns None, updates
    its arguments in place) scaled by a warmup factor marked assume_constant_result kept the
    first step's factor; the program's final loss differed, and `--check-accuracy` said "no
    problems found" because only the function's return value was compared. The arguments the
    compiled call updated are compared with the replay's clones: call 2 differs, verdict
    changed_after_compile, named by the argument."""
    _WARMUP["step"] = 0
    params = [torch.ones(3, 2), torch.ones(2)]
    grads = [torch.full((3, 2), 0.5), torch.full((2,), 0.25)]
    fn = torch.compile(_sgd_update, backend="eager")
    try:
        fn(params, grads, 0.1)
        assert not [c for c in checks if not c.ok]
        _WARMUP["step"] = 1
        fn(params, grads, 0.1)
    finally:
        _WARMUP["step"] = 0
    (whole,) = [c for c in checks if not c.ok]
    names = [o.output for o in whole.outputs]
    assert names == ["params[0] (updated in place)", "params[1] (updated in place)"]
    assert all(o.detail["verdict"] == "changed_after_compile" for o in whole.outputs)


def test_an_in_place_update_that_eager_agrees_with_stays_quiet(checks) -> None:
    """The same update without the baked factor: its arguments compared equal, no check fails
    (the comparison of arguments is no source of false positives)."""
    def update(params, grads, lr):
        for p, g in zip(params, grads):
            p.sub_(g * lr)

    params, grads = [torch.ones(3, 2)], [torch.full((3, 2), 0.5)]
    fn = torch.compile(update, backend="eager")
    for _ in range(4):
        fn(params, grads, 0.1)
    assert not [c for c in checks if not c.ok]
    assert torch.allclose(params[0], torch.full((3, 2), 0.8))


def test_later_calls_are_checked_at_powers_of_two_and_a_right_function_stays_quiet(
        checks, monkeypatch) -> None:
    from compdiag.capture import function_accuracy as F

    replays = []
    original = F.replay
    monkeypatch.setattr(F, "replay", lambda *a, **k: replays.append(1) or original(*a, **k))

    def step(x):
        return (x * 2).cos()

    fn = torch.compile(step, backend="eager")
    for _ in range(9):
        fn(torch.randn(4))
    assert len(replays) == 4  # calls 1, 2, 4 and 8
    assert all(c.ok for c in checks)


def test_a_function_reading_its_parameters_grads_is_replayed_with_them(checks) -> None:
    """probes35a accum_clip_step_ok: a compiled update given a list of parameters reads
    `p.grad`. The replay ran on clones without `.grad` and raised AttributeError on None: a
    false "compiled accepted what eager rejects" on a correct program. The clones keep each
    leaf's `.grad` and `requires_grad`; the program's own grads are untouched."""
    w = torch.nn.Parameter(torch.randn(3, 3))
    w.grad = torch.randn(3, 3)
    grad_before = w.grad.clone()

    def step(params, lr):
        for p in params:
            p.sub_(lr * p.grad.add(p, alpha=1e-2))
        return torch.stack([p.grad.norm() for p in params])

    with torch.no_grad():
        torch.compile(step, backend="eager")([w], 0.1)
    assert not [c for c in checks if not c.ok], [o.detail for c in checks for o in c.outputs]
    assert torch.equal(w.grad, grad_before)


def test_a_graph_replay_that_raises_prints_nothing_on_the_programs_stderr(capfd) -> None:
    """probes35c ista_custom_op_ok: torch.fx's GraphModule prints its generated code's failing
    line to stderr before it re-raises; the float64 replay of a graph that makes a float32
    tensor raised, and 24 lines of it reached the user's stderr under `--check-accuracy`."""
    from compdiag.capture.accuracy_replay import _eager

    gm = torch.fx.symbolic_trace(lambda x: torch.mm(x, torch.ones(2, 2)))
    with pytest.raises(RuntimeError):
        _eager(gm, [torch.ones(2, 2, dtype=torch.float64)], torch.random.get_rng_state())
    assert capfd.readouterr().err == ""


def test_eagers_error_names_the_call_it_came_out_of() -> None:
    """probes35e graph_expand_stale_size, blind: eager's "allocated size does not match
    required size" (a C++ kernel's words) named no op, and its line called two; the verdict
    said neither. The columns Python keeps for the raising frame name the call."""
    from compdiag.capture.function_rejects import eager_rejects

    with pytest.raises(RuntimeError) as info:
        torch.nn.functional.relu(torch.ones(3, 2)).repeat_interleave(
            torch.tensor([1, 1, 1]), dim=0, output_size=5)
    check = eager_rejects("f", info.value, [("0/0", None, None, False)], [])
    assert check.outputs[0].detail["eager_error"].endswith("(in repeat_interleave)")
    assert check.divergent_node["op"] == "repeat_interleave"


_NET = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def _task_loss(params, x, y):
    pred = torch.func.functional_call(_NET, params, (x,))
    return ((pred - y) ** 2).mean()


def test_a_function_that_runs_a_module_it_cannot_change_is_replayed(checks) -> None:
    """probes36c maml_functional_call_stale, blind: a compiled loss ran a global module through
    `functional_call` with a parameter dict; first called with the module's own parameters, it
    kept reading them for the adapted tensors (no recompile), and `--check-accuracy` said
    nothing: a function reaching a module was never replayed. A module whose call changes
    nothing (no layer reading `training` in training, no hook, no state stored) and a function
    with no in-place tensor method are replayed: call 2 differs."""
    from compdiag.capture.function_accuracy import replay_refusal

    x, y = torch.randn(6, 4), torch.randn(6, 1)
    params = dict(_NET.named_parameters())
    assert replay_refusal(_task_loss, (params, x, y), {}) is None
    fn = torch.compile(_task_loss, backend="eager")
    fn(params, x, y)
    assert not [c for c in checks if not c.ok]
    fn({k: (v - 0.5).detach().requires_grad_() for k, v in params.items()}, x, y)
    (whole,) = [c for c in checks if not c.ok]
    assert whole.outputs[0].detail["verdict"] == "changed_after_compile"

    def updates(params, x):
        _NET[0].weight.add_(1.0)
        return _NET(x)

    assert replay_refusal(updates, (params, x), {}) == "it reaches a Sequential"
    assert replay_refusal(_uses_dropout, (x,), {}) == "it reaches a Sequential"


_DROPOUT = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Dropout())


def _uses_dropout(x):
    return _DROPOUT(x)


def test_a_float32_result_of_bfloat16_arithmetic_is_judged_at_bfloat16s_tolerance():
    """probes37g autocast_bf16_mlp_vs_f64_ok: an MLP under CPU autocast returns float32
    logits computed in bfloat16; the whole-function check judged its 2e-4 difference at
    float32's tolerance and said "what Dynamo traced differs from the code", while every graph
    matched eager at bfloat16's. The function's result is judged at the coarsest dtype its
    graphs computed in."""
    from compdiag.capture.function_accuracy import compare

    eager = torch.linspace(0.1, 1.0, 16)
    compiled = eager + 2e-4
    (check, _), = compare(eager, compiled, Tolerance())
    assert not check.ok  # float32's tolerance: a mismatch
    (check, _), = compare(eager, compiled, Tolerance(), torch.bfloat16)
    assert check.ok, check.detail


SCALE = [1.0]


@torch.compiler.assume_constant_result
def _scale() -> float:
    return SCALE[0]


class _Tracker:
    """A running total of the program's own class, updated by the compiled function."""

    def __init__(self) -> None:
        self.total = 0.0
        self.last = torch.zeros(3)

    def add(self, x):
        self.last = x * _scale()
        self.total = self.total + _scale()


def _track(tracker, x):
    tracker.add(x)
    return x.sum()


def test_a_number_written_into_the_programs_object_is_compared_at_its_store_line(checks):
    """probes38b obs_rms_count_stale, blind: a compiled normalisation updated a running
    mean/std object of the program's own class; after a recompile its float `count` was
    written back as the same constant every call while eager's grew, and --check-accuracy
    said nothing: a function that writes state was never replayed. Now the object is
    deep-copied before the call, the replay runs on the copy, and the copy's attributes are
    compared with the program's object. Here the stale value is a baked-in constant
    (`assume_constant_result`), with the eager backend: the total is compared on call 2."""
    import inspect

    tracker = _Tracker()
    compiled = torch.compile(_track, backend="eager")
    x = torch.ones(3)
    compiled(tracker, x)
    assert tracker.total == 1.0  # the replay changed the program's object not at all
    SCALE[0], tracker.total = 2.0, 0.0  # the same total: no guard fails, nothing recompiles
    try:
        compiled(tracker, x)
    finally:
        SCALE[0] = 1.0
    assert tracker.total == 1.0 and torch.equal(tracker.last, x)  # compiled kept scale 1
    bad = [o for c in checks for o in c.outputs if not o.ok]
    assert bad, checks
    first = bad[0]
    assert first.detail["attribute"] == "total" and first.detail["verdict"] == "stale_number"
    assert (first.detail["eager"], first.detail["compiled"]) == ("2.0", "1.0")
    lines, start = inspect.getsourcelines(_Tracker.add)
    at = checks[-1].divergent_node["user_frame"]
    assert at["lineno"] == start + 2 and "self.total" in at["line"]


def test_an_object_whose_methods_write_a_global_is_still_not_replayed() -> None:
    class Logger:
        def log(self, x):
            COUNTER[0] += 1
            self.seen = x

    def step(logger, x):
        logger.log(x)
        return x + 1

    why = replay_refusal(step, (Logger(), torch.ones(2)), {})
    assert why and "stores state" in why


def test_an_object_whose_method_keeps_a_timestamp_is_not_replayed() -> None:
    """A copied object's attributes are compared after the replay: a timestamp its method
    stores differs by design, so a method that reads the clock is never replayed."""
    import time

    class Meter:
        def tick(self, x):
            self.at = time.perf_counter()
            return x

    def step(meter, x):
        return meter.tick(x) + 1

    assert replay_refusal(step, (Meter(), torch.ones(2)), {}) == "it reads the clock"
