"""`--check-accuracy` on the compiled backward and on inputs eager rejects (issue 29 section 4),
without a compile: a stand-in for AOTAutograd's `CompiledFunction` (same node name, one edge per
graph input) with a deliberately wrong backward, and a stand-in backend for the localisation.
The end-to-end case on Inductor is the corpus script acc_backward_injected.py.

Before these, the checker compared forward outputs only: a wrong gradient was "no problems
found", and an input eager rejects made the check itself fail (a run warning)."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture.accuracy import AccuracyChecker, Tolerance, check_graph
from compdiag.capture.grad_accuracy import Modes, suffix_graph


def _graph() -> torch.fx.GraphModule:
    def f(x, w):
        y = x * w
        z = torch.sin(y)
        return (z + 1.0,)
    return torch.fx.symbolic_trace(f)


def _backend(wrong: object | None):
    """A backend whose compiled backward scales the gradients of any graph containing op
    `wrong` by 1.5 (the forward is right): an autograd Function named like AOTAutograd's."""
    def compiler(gm: torch.fx.GraphModule, _inputs: list) -> object:
        has_bug = any(n.target is wrong for n in gm.graph.nodes)

        class CompiledFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                ctx.save_for_backward(*args)
                return tuple(gm(*args))

            @staticmethod
            def backward(ctx, *grads):
                ins = [t.detach().requires_grad_(True) for t in ctx.saved_tensors]
                with torch.enable_grad():
                    outs = gm(*ins)
                    got = torch.autograd.grad(outs, ins, grads, allow_unused=True)
                return tuple(None if g is None else g * (1.5 if has_bug else 1.0)
                             for g in got)

        return lambda *args: CompiledFunction.apply(*args)
    return compiler


def _run(wrong: object | None) -> tuple[list, torch.Tensor, torch.Tensor]:
    gm, checks = _graph(), []
    compiler = _backend(wrong)
    checked = AccuracyChecker(checks.append).wrap(gm, compiler(gm, []), "0/0", compiler)
    torch.manual_seed(0)
    x, w = torch.randn(8, requires_grad=True), torch.randn(8, requires_grad=True)
    out = checked(x, w)
    out[0].sum().backward()
    return checks, x, w


def test_a_wrong_gradient_is_a_verdict_at_the_op_whose_backward_differs():
    """The forward agrees; the compiled backward's gradients do not: one check per graph input
    that needs a gradient, a miscompile against float64, located at sin by compiling suffixes."""
    checks, x, w = _run(torch.sin)
    forward, backward = checks
    assert forward.ok
    assert not backward.ok
    assert [o.output for o in backward.outputs] == ["grad of x", "grad of w"]
    assert all(o.detail["backward"] and o.detail["verdict"] == "miscompile"
               for o in backward.outputs)
    assert backward.divergent_node["node"] == "sin" and backward.divergent_node["backward"]
    assert backward.divergent_node["compiles"] <= 3
    # The program's gradients are the compiled backward's, untouched by the check.
    expected = 1.5 * torch.cos(x * w) * w
    assert torch.allclose(x.grad, expected.detach())


def test_a_right_gradient_passes():
    checks, _, _ = _run(None)
    assert [c.ok for c in checks] == [True, True]
    assert checks[1].outputs and all(o.detail["backward"] for o in checks[1].outputs)


def test_no_backward_check_without_a_gradient():
    """no_grad, or inputs that need none: only the forward is checked."""
    gm, checks = _graph(), []
    compiler = _backend(torch.sin)
    checked = AccuracyChecker(checks.append).wrap(gm, compiler(gm, []), "0/0", compiler)
    with torch.no_grad():
        checked(torch.randn(4, requires_grad=True), torch.randn(4))
    assert len(checks) == 1 and checks[0].ok


def test_suffix_graph_feeds_earlier_values_as_inputs():
    sub, sources = suffix_graph(_graph(), 1)
    assert [s.name for s in sources] == ["mul"]
    assert [n.op for n in sub.graph.nodes][:1] == ["placeholder"]
    assert torch.equal(sub(torch.zeros(2))[0], torch.ones(2))


def test_modes_are_replayed_as_the_program_set_them():
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.no_grad():
        modes = Modes.now()
    assert modes.autocast == (("cpu", "bfloat16"),) and not modes.grad
    assert modes.describe() == ["autocast(cpu, bfloat16)", "no_grad"]
    with modes.applied(grad=True):
        assert torch.is_autocast_enabled("cpu") and torch.is_grad_enabled()
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")


def test_compiled_accepting_what_eager_rejects_is_a_miscompile_at_the_op():
    """Eager raises on the program's own input, the compiled graph returned a value."""
    def f(x, i):
        y = x * 2
        return (torch.index_select(y, 0, i),)
    gm = torch.fx.symbolic_trace(f)
    x, i = torch.randn(4), torch.tensor([7])
    check = check_graph(gm, (torch.zeros(1),), [x, i], torch.random.get_rng_state(),
                        Tolerance(), "0/0")
    assert not check.ok
    out = check.outputs[0]
    assert out.detail["verdict"] == "eager_rejects"
    assert "IndexError" in out.detail["eager_error"] or "index" in out.detail["eager_error"]
    assert check.divergent_node["node"] == "index_select"


# -- what explain says of them (rows fed through the Ingestor, as capture feeds them) ----------
def test_explain_words_a_gradient_mismatch_at_the_op_whose_backward_differs(tmp_path):
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "relu", "op": "relu", "backward": True,
            "user_frame": {"filename": str(s.user), "lineno": 7}}
    s.accuracy("0/0", [("output 0", True, 0.0, 0.0, {}),
                       ("grad of l_y_", False, 1.0, 0.9, {
                           "backward": True, "verdict": "miscompile",
                           "modes": ["autocast(cpu, bfloat16)"],
                           "fp64": {"eager_rel": 0.0, "compiled_rel": 1.9}})], node=node)
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and d["reason"].startswith("backward: compiled grad of l_y_")
    assert "first op whose backward differs: relu (node relu)" in d["reason"]
    assert "under autocast(cpu, bfloat16)" in d["explanation"]
    assert d["user_frame"]["lineno"] == 7


def test_explain_words_an_input_eager_rejects(tmp_path):
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "index_select", "op": "index_select",
            "user_frame": {"filename": str(s.user), "lineno": 5}}
    s.accuracy("0/0", [("outputs", False, None, None, {
        "verdict": "eager_rejects", "eager_error": "IndexError: index out of range in self",
        "reason": "eager raised IndexError"})], node=node)
    (d,) = s.explain()
    assert "accepted an input that eager rejects: eager raised IndexError" in d["reason"]
    assert d["user_frame"]["lineno"] == 5 and "miscompile" in d["explanation"]


def test_a_users_check_that_saw_a_difference_is_told_what_the_check_compared(tmp_path):
    """The program's own check failed and --check-accuracy found the graphs equal: the fix
    says which inputs and outputs the check compared, at which tolerance, how far apart they
    were and how much rounding the computation amplifies (ill-conditioned near zero)."""
    from test_explain import Store

    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 9 + "assert torch.equal(eager, compiled)\n")
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", True, 2e-5, 0.3, {
        "tol": 1e-4, "amplification": 2.5e3, "inputs": ["float32[64, 1000] (3 nan)"]}),
                       ("grad of x", True, 1e-7, 1e-7, {"backward": True, "tol": 1e-4})])
    s.ing.program_exception(None, exc_type="AssertionError", message="",
                            frames=[{"filename": str(s.user), "lineno": 10, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    top = s.explain()[0]
    assert top["kind"] == "program"
    assert ("--check-accuracy compared 1 output and 1 gradient (of the program's own "
            "backward) of 1 compiled graph on the program's own inputs (float32[64, 1000] "
            "(3 nan)) at tolerance 0.0001; the largest difference was 2e-05 abs, 0.3 rel "
            "(output 0), float rounding amplified ~2500x there: ill-conditioned.") in top["fix"]


def test_an_output_within_tolerance_keeps_its_amplification():
    from compdiag.capture.accuracy import compare_output

    exact = torch.tensor([1e-3, 1.0], dtype=torch.float64)
    eager = (exact + torch.tensor([1e-6, 0.0], dtype=torch.float64)).float()
    check = compare_output("o", eager, exact.float(), exact, Tolerance())
    assert check.ok and "verdict" not in check.detail
    assert check.detail["tol"] == 1e-4 and check.detail["amplification"] > 1


PROBE_SCRIPT = '''
import torch


def backend(gm, example_inputs):
    """compiles nothing: gm under an autograd Function named like AOTAutograd's, whose
    backward doubles every gradient"""
    class CompiledFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.save_for_backward(*args)
            return tuple(gm(*args))

        @staticmethod
        def backward(ctx, *grads):
            ins = [t.detach().requires_grad_(True) for t in ctx.saved_tensors]
            with torch.enable_grad():
                got = torch.autograd.grad(gm(*ins), ins, grads, allow_unused=True)
            return tuple(None if g is None else 2 * g for g in got)

    return lambda *args: CompiledFunction.apply(*args)


def step(x):
    return (x.sin() * 3).sum()


x = torch.randn(8, requires_grad=True)
torch.compile(step, backend=backend)(x).backward()
'''


def test_bisect_accuracy_probe_counts_a_wrong_gradient(tmp_path):
    """`compdiag bisect RUN`'s oracle for an accuracy run (accuracy_probe) is bad when only a
    gradient differs: the program exits 0 and its forward is right. Before, the probe compared
    forward outputs only and called it good, so bisect had nothing to search for."""
    import subprocess
    import sys

    from compdiag.bisect.accuracy_probe import MARKER

    (tmp_path / "prog.py").write_text(PROBE_SCRIPT)
    p = subprocess.run([sys.executable, "-m", "compdiag.bisect.accuracy_probe", "prog.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]
    assert f"{MARKER}: graph 0/0 output grad of x:" in p.stderr


def test_the_checkers_replays_warn_nothing_on_the_programs_stderr(recwarn):
    """probes42b pose_heatmap_peak_eq_bf16, blind: the float64 replay of a graph entering bf16
    autocast set off torch's "In CPU autocast, but the target dtype is not supported" on the
    program's stderr under --check-accuracy; the plain run printed nothing. Replays are
    compdiag's, and so is anything they say."""
    import warnings

    from compdiag.capture.accuracy_replay import quiet_call

    def graph(x):
        warnings.warn("In CPU autocast, but the target dtype is not supported.")
        return x + 1

    assert quiet_call(graph, [1]) == 2
    assert not [w for w in recwarn if "autocast" in str(w.message)]


def test_a_replay_that_raises_inside_no_grad_leaves_grad_mode_as_it_was():
    """probes42b pose_heatmap_peak_eq_bf16, blind: `with torch.no_grad(), torch.autocast(...)`
    inside the compiled function; the float64 replay of its graph raised after the graph's own
    `_set_grad_enabled(False)`, so the program went on with gradients off (the next call
    recompiled on grad_mode, an extra compile the plain run never made)."""
    import pytest
    import torch

    from compdiag.capture.accuracy_replay import quiet_call

    def graph(x):
        torch._C._set_grad_enabled(False)
        torch.set_autocast_enabled("cpu", True)
        raise RuntimeError("float64 is not supported by autocast")

    assert torch.is_grad_enabled() and not torch.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError):
        quiet_call(graph, [1])
    assert torch.is_grad_enabled() and not torch.is_autocast_enabled("cpu")


def test_a_graph_check_leaves_the_programs_grad_mode_as_the_call_left_it():
    """The same, through the graph checker itself (AccuracyChecker.wrap): a graph that turns
    grad mode off and raises in its replays (its float64 one) must not leave the program's
    grad mode off after the checked call: under --check-accuracy the pose program then made
    a second compile (GLOBAL_STATE grad_mode) that its plain run never made."""
    import torch
    import torch.fx

    def fail_on_f64(y):
        if y.dtype == torch.float64:  # the checker's float64 reference
            raise RuntimeError("float64 replay failed inside the graph's no_grad")
        return y

    g = torch.fx.Graph()
    x = g.placeholder("x")
    g.call_function(torch._C._set_grad_enabled, (False,))
    y = g.call_function(fail_on_f64, (g.call_function(torch.mul, (x, 2)),))
    g.call_function(torch._C._set_grad_enabled, (True,))
    g.output((y,))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)

    checks: list = []
    checked = AccuracyChecker(checks.append).wrap(gm, lambda x: (x * 2,), "0/0", None)
    assert torch.is_grad_enabled()
    checked(torch.randn(4))
    assert torch.is_grad_enabled()


def test_no_backward_hooks_under_compiled_autograd(monkeypatch):
    """probes42d ca_optim_in_backward_hook, blind: compiled autograd on (its config flag) and
    an optimizer stepped from gradient hooks; the checker's hooks on the outputs and the
    compiled node went into the backward graph compiled autograd compiled, and the program's
    final loss moved from 0.664 (plain) to 0.591 under --check-accuracy. Under compiled
    autograd the backward is left unwatched."""
    import torch

    from compdiag.capture.grad_accuracy import Modes, compiled_autograd_on, watch_backward

    assert not compiled_autograd_on()
    monkeypatch.setattr(torch._dynamo.config, "compiled_autograd", True)
    assert compiled_autograd_on()
    gm, x = _graph(), torch.randn(8, requires_grad=True)
    out = (x * 2,)
    assert watch_backward(gm, [x, x], [x, x], out, torch.random.get_rng_state(),
                          Modes.now(), lambda *a: None) is False


WRITE_SRC = """def train(model, xbuf, batches):
    for nxt in batches:
        pred = model(xbuf)
        loss = pred.sum()
        xbuf.copy_(nxt)  # prefetch the next batch
        loss.backward()
"""


def test_an_input_written_before_the_backward_eager_rejects_is_a_verdict_at_the_write(tmp_path):
    """probes43f prefetch_buffer_before_backward (pytorch#197887), blind: the program copied
    the next batch into the forward's input buffer before backward(); eager raises ("modified
    by an inplace operation"), Inductor's backward computed gradients from the new values, and
    the check compared them with eager's from the old ones, blaming the forward's Linear with a
    bisect. Now: eager's own error, at the line that wrote, with the fix to write after."""
    from compdiag.capture.grad_accuracy import BackwardWatch, rejected_after_forward, \
        rejected_check

    def f(x, w):
        return (x.view(-1, 4) @ w).sum()

    gm = torch.fx.symbolic_trace(f)
    x, w = torch.randn(2, 3, 4), torch.randn(4, 2, requires_grad=True)
    watch = BackwardWatch(gm, [x.clone(), w.detach().clone()], [False, True],
                          torch.random.get_rng_state(), Modes())
    watch.incoming = {0: torch.ones(())}
    assert rejected_after_forward(watch) is None  # nothing written: nothing to refuse
    watch.modified = [0]
    error = rejected_after_forward(watch)
    assert error and "modified by an inplace operation" in error and "Hint" not in error
    src = tmp_path / "train.py"
    src.write_text(WRITE_SRC)
    frame = {"filename": str(src), "name": "train"}
    watch.calls = [{**frame, "lineno": 3, "line": "pred = model(xbuf)"}]
    watch.backward = {**frame, "lineno": 6, "line": "loss.backward()"}
    check = rejected_check(watch, "0/0", error)
    (out,) = check.outputs
    assert not out.ok and out.detail["verdict"] == "modified_before_backward"
    assert out.detail["attribute"] == "xbuf" and check.divergent_node["op"] == "copy_"
    assert check.divergent_node["user_frame"]["lineno"] == 5
