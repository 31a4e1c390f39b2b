"""Accuracy against eager: the comparison rules (fast), and end to end on CPU — `compdiag check`
exit codes and JUnit on an injected mismatch, a clean script and a crashing script; the
localiser naming the injected op; a real float16 overflow; the pytest plugin via pytester."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import torch

from cdtest import fork_server_env, shared_cache
from compdiag.capture.accuracy import Tolerance, compare_output

SCRIPTS = Path(__file__).parent / "accuracy_scripts"


# -- the rules, on tensors --------------------------------------------------------------------
def test_small_float32_noise_passes_and_real_error_fails():
    ref = torch.linspace(-1, 1, 100)
    ok = compare_output("o", ref, ref + 1e-7, ref.double(), Tolerance())
    bad = compare_output("o", ref, ref + 0.1, ref.double(), Tolerance())
    assert ok.ok and not bad.ok
    assert bad.max_abs == pytest.approx(0.1, rel=1e-3)
    assert "beyond tolerance" in bad.detail["reason"]


def test_compiled_closer_to_fp64_than_eager_passes():
    """same()'s RMSE rule: a result nearer the float64 reference than eager is not an error."""
    exact = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64) / 3
    eager = (exact + 5e-3).to(torch.bfloat16)
    compiled = exact.to(torch.bfloat16)
    assert compare_output("o", eager, compiled, exact, Tolerance()).ok


def test_inf_pattern_mismatch_fails_and_explains_overflow():
    x = torch.full((4,), 300.0, dtype=torch.float16)
    eager = x * x / 1000
    compiled = (x.float() * x.float() / 1000).half()
    check = compare_output("o", eager, compiled, x.double() * x.double() / 1000, Tolerance())
    assert not check.ok
    assert check.detail["inf_mismatch"]
    assert "eager overflows in torch.float16" in check.detail["reason"]


def test_shape_dtype_and_integer_mismatches():
    a = torch.ones(2, 3)
    assert "shape" in compare_output("o", a, torch.ones(3, 2), a, Tolerance()).detail["reason"]
    assert "dtype" in compare_output("o", a, a.double(), a, Tolerance()).detail["reason"]
    i = torch.arange(5)
    assert compare_output("o", i, i.clone(), i, Tolerance()).ok
    assert not compare_output("o", i, i + 1, i, Tolerance()).ok


def test_verdicts_against_float64():
    """torchbench's RMSE rule, per verdict: compiled far and eager near fp64 is a miscompile;
    both far (eager beyond the tolerance) is ill-conditioning, whatever same() says."""
    torch.manual_seed(0)
    exact = torch.randn(4096, dtype=torch.float64)
    eager = exact.float()
    miscompiled = compare_output("o", eager, eager + 1e-2, exact, Tolerance())
    assert not miscompiled.ok and miscompiled.detail["verdict"] == "miscompile"
    assert miscompiled.detail["fp64"]["compiled_rel"] > 1e3 * miscompiled.detail["fp64"][
        "eager_rel"]
    noisy = (exact + 1e-2 * torch.randn(4096, dtype=torch.float64)).float()
    other = (exact + 1e-2 * torch.randn(4096, dtype=torch.float64)).float()
    ill = compare_output("o", noisy, other, exact, Tolerance())
    assert ill.detail["verdict"] == "ill_conditioned" and ill.detail["amplification"] > 1e4
    dtype = compare_output("o", torch.ones(3, dtype=torch.int8), torch.ones(3, dtype=torch.int64),
                           None, Tolerance())
    assert dtype.detail["verdict"] == "dtype_promotion" and dtype.detail["values_equal"]
    assert (dtype.detail["eager_dtype"], dtype.detail["compiled_dtype"]) == ("torch.int8",
                                                                             "torch.int64")
    x = torch.full((4,), 300.0, dtype=torch.float16)
    nonfinite = compare_output("o", x * x / x, (x.float() * x.float() / x.float()).half(),
                               x.double(), Tolerance())
    assert nonfinite.detail["verdict"] == "inf_nan"
    assert nonfinite.detail["matches_fp64"] == "compiled"
    assert "verdict" not in compare_output("o", eager, eager.clone(), exact, Tolerance()).detail
    # a float64 program: eager is its own reference, so reordering noise within the tolerance
    # is no "ill-conditioned" verdict (probes34d gp_regression_chol_ok: "both far from the
    # float64 reference (relative RMSE eager 0, compiled 1.88e-13)")
    reordered = exact * (1 + 1e-13 * torch.randn(4096, dtype=torch.float64))
    quiet = compare_output("o", exact, reordered, exact.clone(), Tolerance())
    assert quiet.ok and "verdict" not in quiet.detail, quiet.detail


def test_user_tolerances_widen_the_check():
    ref = torch.ones(10)
    assert not compare_output("o", ref, ref + 1e-3, ref.double(), Tolerance()).ok
    assert compare_output("o", ref, ref + 1e-3, ref.double(), Tolerance(atol=1e-2)).ok


def test_eager_nondeterminism_is_not_blamed_on_the_compiler():
    from compdiag.capture.accuracy import check_graph

    class Noisy(torch.nn.Module):
        def forward(self, x):
            return (x + torch.randn(x.shape, generator=self.g),)

    m = Noisy()
    m.g = torch.Generator().manual_seed(1)  # not the global RNG: replays differ
    gm = torch.fx.symbolic_trace(m)
    x = torch.zeros(8)
    compiled_out = (x + 50,)
    check = check_graph(gm, compiled_out, [x], torch.random.get_rng_state(), Tolerance(), "0/0")
    assert check.nondeterministic
    assert check.ok
    assert check.outputs[0].detail["eager_nondeterministic"]
    assert "non-deterministic" in check.outputs[0].detail["reason"]


def test_an_input_the_graph_updates_in_place_is_compared_too():
    """set12 adam_item_addcdiv (pytorch#185382): a hand-written Adam step compiled by Inductor
    updates its parameter in place (`param.addcdiv_(...)`) and returns nothing, so on main
    --check-accuracy compared no output at all and explain named only the .item() graph
    break, while compiled's parameter was 1.4e4x further from float64 than eager's. The
    inputs a run changes in place are results too: each is compared, by the program's name
    for it; an input nothing changed is not."""
    from compdiag.capture.accuracy import check_graph

    class Step(torch.nn.Module):
        def forward(self, param, grad, lr):
            param.add_(grad * lr)

    gm = torch.fx.symbolic_trace(Step())
    param, grad = torch.ones(8), torch.full((8,), 0.5)
    before = [param.clone(), grad.clone(), 0.1]
    wrong = param + grad * 0.2  # what a miscompiled step leaves in the parameter
    check = check_graph(gm, None, before, torch.random.get_rng_state(), Tolerance(), "0/0",
                        args_after=[wrong, grad, 0.1])
    (updated,) = [o for o in check.outputs if "updated in place" in o.output]
    assert not check.ok and not updated.ok and updated.output.startswith("input param"), check
    right = param + grad * 0.1
    again = check_graph(gm, None, before, torch.random.get_rng_state(), Tolerance(), "0/0",
                        args_after=[right, grad, 0.1])
    assert again.ok and [o.output for o in again.outputs if "in place" in o.output] == \
        [updated.output]


# -- end to end -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Each script once under `compdiag check --junit`, all started together (each a compile
    of its own, in the session's shared Inductor cache), and clean.py once more under plain
    python once its check is done."""
    base = tmp_path_factory.mktemp("accuracy")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(shared_cache()))
    check_env = dict(env, **fork_server_env())  # the checks' capture children: forked
    started = {}
    for name in ("relu_bug", "log1p_bug", "clean", "crash", "fp16_overflow"):
        junit = base / f"{name}.xml"
        store = base / f"{name}.db"
        started[name] = (junit, store, subprocess.Popen(
            [sys.executable, "-m", "compdiag", "check", "--store", str(store), "--junit",
             str(junit), str(SCRIPTS / f"{name}.py")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=check_env, cwd=base))
    plain = None
    out = {}
    try:
        for name, (junit, store, proc) in started.items():
            stdout, stderr = proc.communicate(timeout=600)
            if name == "clean":  # after its check: the same graph, a cache hit, no 2nd compile
                plain = subprocess.Popen([sys.executable, str(SCRIPTS / "clean.py")],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, env=env, cwd=base)
            shown = subprocess.run([sys.executable, "-m", "compdiag", "show", "--store",
                                    str(store), "--json"], capture_output=True, text=True,
                                   check=True)
            out[name] = {"rc": proc.returncode, "stdout": stdout, "stderr": stderr,
                         "junit": ET.parse(junit).getroot(), "doc": json.loads(shown.stdout)}
        out["clean"]["plain_stdout"] = plain.communicate(timeout=600)[0]
    finally:  # a timeout or a failed check leaves no process behind
        for proc in [p for _, _, p in started.values()] + [plain]:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    return out


def _divergent(doc: dict) -> dict:
    bad = [a for a in doc["accuracy"] if not a["ok"]]
    assert bad, doc["accuracy"]
    return bad[0]["detail"]["divergent_node"]


def test_injected_relu_mismatch_exits_1_with_junit_failure_and_names_relu(checked):
    r = checked["relu_bug"]
    assert r["rc"] == 1, r["stderr"][-2000:]
    suite = r["junit"]
    assert suite.get("failures") == "1" and suite.get("errors") == "0"
    failure = suite.find("testcase/failure")
    assert failure is not None and "relu" in failure.get("message")
    node = _divergent(r["doc"])
    assert node["op"] == "relu"
    assert node["user_frame"]["line"] == "z = torch.relu(y)"
    fails = [f for f in r["doc"]["failures"] if f["stage"] == "accuracy"]
    assert fails and fails[0]["user_frame"]["lineno"] == 10


def test_injected_log1p_mismatch_names_log1p(checked):
    r = checked["log1p_bug"]
    assert r["rc"] == 1, r["stderr"][-2000:]
    assert _divergent(r["doc"])["op"] == "log1p"


def test_clean_script_exits_0_and_its_numbers_do_not_change(checked):
    r = checked["clean"]
    assert r["rc"] == 0, r["stderr"][-2000:]
    suite = r["junit"]
    assert suite.get("failures") == "0" and int(suite.get("tests")) >= 1
    assert r["doc"]["accuracy"] and all(a["ok"] for a in r["doc"]["accuracy"])
    # In-place input mutation happened once, BatchNorm's buffers updated once, RNG untouched.
    assert r["stdout"] == r["plain_stdout"]


def test_crashing_script_exits_2_with_junit_error(checked):
    r = checked["crash"]
    assert r["rc"] == 2
    assert r["junit"].get("errors") == "1"
    assert "the program gave up" in r["stderr"]


def test_float16_overflow_is_a_real_mismatch(checked):
    r = checked["fp16_overflow"]
    assert r["rc"] == 1, r["stderr"][-2000:]
    bad = [a for a in r["doc"]["accuracy"] if not a["ok"]]
    assert bad and bad[0]["detail"]["inf_mismatch"]
    assert "overflows" in bad[0]["detail"]["reason"]


def test_check_of_a_stored_run_without_accuracy_is_a_one_line_error(checked, tmp_path):
    store = tmp_path / "plain.db"
    from compdiag.store.writer import Writer

    w = Writer(store)
    run = w.begin_run(source="run", argv=["x.py"])
    w.end_run(run, exit_code=0, status="done")
    w.close()
    proc = subprocess.run([sys.executable, "-m", "compdiag", "check", "--store", str(store),
                           str(run)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not recorded with --check-accuracy" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- the pytest plugin ------------------------------------------------------------------------
pytest_plugins = ["pytester"]


def test_pytest_plugin_fails_only_the_disagreeing_test(pytester: pytest.Pytester, tmp_path):
    pytester.makepyfile(test_model="""
        import pytest
        import torch
        import torch._inductor.config as ic

        def f(x):
            return torch.relu(torch.sin(x)) * 3

        @pytest.mark.compdiag_accuracy
        def test_buggy(monkeypatch):
            monkeypatch.setattr(ic.cpp, "inject_relu_bug_TESTING_ONLY", "accuracy")
            torch.compile(f)(torch.randn(16))

        @pytest.mark.compdiag_accuracy(rtol=1e-3)
        def test_fine():
            torch.compile(f)(torch.randn(16))
    """)
    # The plugin is found through its pytest11 entry point, as in a user's project.
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*compiled graphs disagree with eager*",
                                 "*first divergent node*relu*"])


def test_a_divergent_node_dynamo_made_of_another_call_quotes_the_users_statement():
    """set12 adam_item_addcdiv: Dynamo turned `param.addcdiv_(...)` into div, prims.fma and
    copy_, so on main the headline named only "first divergent node copy_ (copy_)", an op the
    user never wrote. The statement is quoted where the op is not in it, and only there."""
    from compdiag.analyses.divergent_ops import statement as _statement

    line = "param.addcdiv_(exp_avg, denom, value=-lr / bias1)"
    node = {"node": "copy_", "op": "copy_", "user_frame": {"lineno": 19, "line": line}}
    assert _statement(node) == line
    assert _statement({"node": "relu", "op": "aten.relu", "user_frame": {
        "line": "y = torch.relu(x)"}}) is None
    assert _statement({"node": "mul", "op": "mul"}) is None


def test_a_divergent_node_says_the_settings_that_choose_what_it_computes():
    """set13 nearest_unchanged_dim (pytorch#198201): compiled `F.interpolate(...,
    mode="nearest")` resampled a dimension its scale leaves unchanged; on main the headline said
    "first divergent node h_1 (interpolate)", not which interpolation. A node's string and
    boolean keyword settings are kept with it (`settings`), and said."""
    import torch.nn.functional as F

    from compdiag.capture.accuracy_compare import _described

    def f(x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")

    gm = torch.fx.symbolic_trace(f)
    (node,) = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert _described(node)["settings"] == "mode='nearest'"


def test_inputs_that_share_memory_are_not_compared_as_updated_in_place():
    """Review of the in-place comparison: `f(q, q.view(2, 2))` adding to its first argument
    changes the second too in the real call, but the eager replay clones each input on its own,
    so the second looked like a miscompile ("input v (updated in place)") with nothing wrong.
    Inputs whose memory another input shares are left out; NaN equal to NaN is no change."""
    from compdiag.capture.accuracy import _changed, check_graph

    class F(torch.nn.Module):
        def forward(self, p, v):
            s = v.sum()
            p.add_(1.0)
            return (s,)

    gm = torch.fx.symbolic_trace(F())
    q = torch.zeros(4)
    before = [q.clone(), q.view(2, 2).clone()]
    out = gm(q, q.view(2, 2))
    check = check_graph(gm, out, before, torch.random.get_rng_state(), Tolerance(), "0/0",
                        args_after=[q, q.view(2, 2)])
    assert check.ok and not [o for o in check.outputs if "in place" in o.output], check
    nan = torch.tensor([float("nan"), 1.0])
    assert not _changed(nan, nan.clone()) and _changed(nan, torch.tensor([float("nan"), 2.0]))


def test_a_step_function_at_the_divergent_node_names_what_fed_it(tmp_path):
    """set14 moe_capacity_floor (pytorch#189787), first run: floor(softmax(x).sum(-1) * k)
    diverged at floor, and the headline named only floor; the rounding difference that floor
    turned into a whole unit came from the ops before it on that line (Inductor's sum of a
    softmax). A divergent step function (floor, a comparison, argmax...) now names the ops
    that fed it, and its fix is about the threshold, not the conditioning."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "dynamo_output_graph": {}},
                 "class GraphModule(torch.nn.Module):\n"
                 "    def forward(self, L_x_: \"f32[4, 3]\"):\n"
                 "        l_x_ = L_x_\n"
                 f"         # File: {s.user}:12 in f, code: return torch.floor(y)\n"
                 "        softmax: \"f32[4, 3]\" = torch.softmax(l_x_, dim = -1)\n"
                 f"         # File: {s.user}:12 in f, code: return torch.floor(y)\n"
                 "        sum_1: \"f32[4]\" = softmax.sum(dim = -1)\n"
                 f"         # File: {s.user}:12 in f, code: return torch.floor(y)\n"
                 "        floor: \"f32[4]\" = torch.floor(sum_1)\n"
                 "        return (floor,)\n")
    s.accuracy("0/0", [("output 0", False, 1.0, 1.0, {"verdict": "ill_conditioned"})],
               node={"node": "floor", "op": "floor", "localised": True,
                     "user_frame": {"filename": str(s.user), "lineno": 12,
                                    "line": "return torch.floor(torch.softmax(x, -1).sum(-1))"}})
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "floor (floor), a step function fed by softmax and sum" in d["reason"], d["reason"]
    assert "threshold" in d["fix"] and "float64" in d["fix"]


def test_an_integer_output_off_by_one_gets_the_rounding_fix_not_the_float_ones(tmp_path):
    """probes35b thumb_uint8_bilinear, blind: a uint8 bilinear resize compiled differs from
    eager by one in many pixels (the decomposition computes in float and rounds once), and the
    fix offered bisect, minify and `emulate_precision_casts` for fp16/bf16, none of which
    helps an integer output; a helper run in eager (`torch.compiler.disable`) does."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", False, 1, None, {"dtype": "torch.uint8",
                                                     "reason": "integer/bool values differ"})],
               node={"node": "thumbs", "op": "interpolate", "localised": True,
                     "user_frame": {"filename": str(s.user), "lineno": 11,
                                    "line": "thumbs = F.interpolate(img, size=(24, 24))"}})
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["user_frame"]["lineno"] == 11
    assert "torch.compiler.disable" in d["fix"] and "run interpolate in eager" in d["fix"]
    assert "emulate_precision_casts = True" not in d["fix"]


def test_a_nan_self_test_on_a_traced_scalar_is_said_decided_at_trace(tmp_path):
    """set14 nan_skip_folded (pytorch#198070), first run under --check-accuracy: no diagnosis
    at all, while the compiled step wrote NaN into the weights. With capture_scalar_outputs,
    `v = loss.item()` is a symbolic float in the graph and `if v != v:` is folded to False
    while tracing; the graph itself is wrong, so replaying it against itself (the graph-level
    check) measures nothing. Read from the source and Dynamo's graph (an `item` node at the
    assignment's line): an accuracy diagnosis at the test."""
    from test_explain import Store

    s = Store(tmp_path)
    s.user.write_text("import torch\n\ndef step(w, x):\n    loss = (x @ w).sum()\n"
                      "    v = loss.item()\n    if v != v:\n        return w\n"
                      "    return w - 0.1 * x\n\nstep = torch.compile(step)\n")
    s.compile("0/0", co_name="step", lineno=3)
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "dynamo_output_graph": {}},
                 "class GraphModule(torch.nn.Module):\n"
                 "    def forward(self, L_x_: \"f32[4]\", L_w_: \"f32[4]\"):\n"
                 f"         # File: {s.user}:4 in step, code: loss = (x @ w).sum()\n"
                 "        loss: \"f32[]\" = (L_x_ @ L_w_).sum()\n"
                 f"         # File: {s.user}:5 in step, code: v = loss.item()\n"
                 "        item: \"Sym(zuf0)\" = loss.item()\n"
                 "        return (loss,)\n")
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["reason"].startswith("the NaN test `v != v` at line 6 is decided while tracing")
    assert d["user_frame"]["lineno"] == 6 and "torch.isnan(loss)" in d["fix"], d


def test_a_python_number_the_graph_takes_as_input_is_compiled_in_for_localisation():
    """set18b electra_rtd_stale_eps (pytorch#197889), first run: a loss clamping to
    [eps, 1 - eps] with eps annealed each step differed from eager, and the localiser, which
    compiles each prefix of the graph on its own, failed on every one (the `.item()` Dynamo
    reads a lifted float with raises DataDependentOutputException outside its shape
    environment), so the headline fell back to the output's division. The number is compiled in
    as this call's value, and the first op reading it is known."""
    from compdiag.capture import scalar_inputs

    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def loss(x, eps):
        return torch.sigmoid(x).clamp(eps, 1 - eps).sum()

    f = torch.compile(loss, backend=keep)
    x = torch.randn(4, 3)
    for eps in (0.2, 0.1, 0.05):
        f(x, eps)
    args = [x, torch.tensor(0.05, dtype=torch.float64)]
    lifted = [gm for gm in graphs if scalar_inputs.lifted(gm, args)]
    assert lifted, [gm.code for gm in graphs]
    gm = lifted[-1]
    assert [name for name, _ in scalar_inputs.lifted(gm, args).values()] == ["eps"]
    fixed = scalar_inputs.specialised(gm, args)
    assert not scalar_inputs.lifted(fixed, args)
    assert torch.equal(fixed(*args)[0], loss(x, 0.05))
    node, name = scalar_inputs.first_reader(gm, args)
    assert name == "eps" and "clamp" in str(node.target), node.format_node()
    assert scalar_inputs.user_name("L_eps_") == "eps" and scalar_inputs.user_name("l_x_") == "x"


def _stale_store(tmp_path, node, backward_too=True):
    from test_explain import Store

    # the program the node's frame names (a file the run saw, so its line is evidence)
    (tmp_path / "user.py").write_text("def loss(x, eps):\n    p = x.clamp(eps, 1 - eps)\n"
                                      "    return a / b\n")
    s = Store(tmp_path)
    s.compile("0/0")
    rows = [("output 0", False, 0.05, 0.08, {"verdict": "miscompile"})]
    if backward_too:
        rows.append(("grad of x", False, 0.002, 0.09, {"verdict": "miscompile",
                                                       "backward": True, "input": 0}))
    s.accuracy("0/0", rows, node=node)
    return s


def test_a_forward_that_differs_heads_its_gradients(tmp_path):
    """set18b electra_rtd_stale_eps, first run: the compiled loss and its gradient both
    differed, and the headline was the gradient's ("backward: compiled grad of logits
    differs"), the larger relative error, though the backward only reads what the forward
    computed. A forward output that differs heads the diagnosis; its gradients are counted."""
    s = _stale_store(tmp_path, {"node": "truediv", "op": "truediv", "localised": False,
                                "user_frame": {"filename": str(tmp_path / "user.py"),
                                               "lineno": 3, "line": "return a / b"}})
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["reason"].startswith("compiled output 0 differs"), d["reason"]
    assert d["count"] == 2
    # an op the localiser fell back to is not called the first divergent node
    assert "first divergent node" not in d["reason"]
    assert "shows at node truediv (truediv), the op computing it" in d["reason"], d["reason"]
    assert "not localised" in d["explanation"]


def test_a_difference_a_fresh_compile_does_not_show_names_the_stale_number(tmp_path):
    """What the localiser says when the graph, compiled again for the same inputs, agrees
    with eager while the code that ran did not (pytorch#197889's stale float): the number,
    its first reader's line, and a fix that does not offer a minified repro (a fresh compile
    is what minify replays, so it would not reproduce)."""
    s = _stale_store(tmp_path, {"node": "probs", "op": "clamp", "localised": False,
                                "fresh_compile_agrees": True, "stale_input": "eps",
                                "user_frame": {"filename": str(tmp_path / "user.py"),
                                               "lineno": 2, "line": "p = x.clamp(eps, 1 - eps)"}},
                     backward_too=False)
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "used another value of eps" in d["reason"] and "clamp (node probs)" in d["reason"]
    assert d["user_frame"]["lineno"] == 2
    assert "torch.tensor(eps)" in d["fix"] and "compdiag minify" not in d["fix"]
