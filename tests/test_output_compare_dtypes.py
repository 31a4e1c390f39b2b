"""Outputs whose dtype needs care when compared (issue 29 §4): integers the compiled code
computed in 32 bits (wraps_32), float8 that has no arithmetic kernels; measured by
--check-accuracy (capture/accuracy_compare.py) and named in the verdict."""

import torch

from compdiag.capture.accuracy_compare import Tolerance, compare_output


def test_int64_results_off_by_multiples_of_2_to_the_32_are_an_overflow():
    """set11/gpu's arange_int64_overflow (pytorch#175966) on the H200: the compiled arange
    product came out 2**33 off; before, the accuracy headline said only "integer/bool values
    differ"."""


    eager = torch.arange(0, 11, dtype=torch.int64) * 10**9
    compiled = eager.clone()
    compiled[5:] -= 2 * (1 << 32)
    out = compare_output("output 0", eager, compiled, eager, Tolerance())
    assert not out.ok and "32-bit overflow" in out.detail["reason"]
    other = eager.clone()
    other[3] += 7
    assert "overflow" not in compare_output("output 0", eager, other, eager,
                                            Tolerance()).detail["reason"]


def test_float8_outputs_are_compared_not_left_unchecked():
    """set12/gpu fp8_cast_saturation (ao#1912): eager's float8_e4m3fn cast gave NaN where the
    compiled Triton cast saturated to 448. On main the check raised NotImplementedError
    ("mul_cuda" not implemented for 'Float8_e4m3fn': float8 has no arithmetic kernels), and
    the run said "no problems found". float8 values are now compared as float32, at the
    format's own tolerance."""
    eager = torch.tensor([float("nan"), 1.0, 2.0]).to(torch.float8_e4m3fn)
    compiled = torch.tensor([448.0, 1.0, 2.0]).to(torch.float8_e4m3fn)
    out = compare_output("output 0", eager, compiled, eager, Tolerance())
    assert not out.ok and out.detail["nan_mismatch"]
    assert out.detail["verdict"] == "inf_nan" and out.detail["matches_fp64"] == "eager"
    assert out.detail["tol"] == 0.125
    assert compare_output("output 0", compiled, compiled, compiled, Tolerance()).ok


def test_a_graph_the_check_could_not_compare_is_said_not_no_problems_found(tmp_path):
    """set12/gpu fp8_cast_saturation's other half: when --check-accuracy raised on a graph
    (there NotImplementedError for float8 arithmetic), main kept only a run warning and explain
    said "no problems found" for numbers nobody compared. Now the graph is an information
    diagnosis saying so, and the check's rows of compared outputs stay apart from it (a
    program's failed check is never "--check-accuracy found the compiled graphs equal")."""
    from types import SimpleNamespace

    from compdiag.store.reader import Reader
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.accuracy(SimpleNamespace(compile_id="0/0", nondeterministic=False, divergent_node=None,
                                   outputs=[], error="NotImplementedError: \"mul_cuda\" not "
                                                     "implemented for 'Float8_e4m3fn'"))
    s.done()
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["severity"] == "info" and "could not compare" in d["reason"], d
    assert "Float8_e4m3fn" in d["reason"]
    with Reader(s.path) as r:
        assert r.accuracy(s.run_id) == []
        assert len(r.accuracy(s.run_id, not_compared=True)) == 1
    # listed as what it is: the kind's title says "accuracy mismatch", which this is not
    from test_explain import _cli
    out = _cli("explain", "--store", str(s.path)).stdout
    assert "accuracy note: --check-accuracy could not compare" in " ".join(out.split()), out
    assert "1 accuracy note" in " ".join(out.split()) and "mismatch" not in out, out


def test_a_program_building_distributions_hears_that_torch_compile_turned_validation_off(
        tmp_path):
    """set10 categorical_empty_batch (pytorch#194548): `torch.compile(...)` makes Dynamo call
    `Distribution.set_default_validate_args(False)` for the whole process (checked on torch
    2.13: `_validate_args` True before the call, False after, and eager then accepts an empty
    batch). On main nothing said so; a program that compiled something and builds a
    distribution without `validate_args` now gets an information diagnosis at that line."""
    from test_explain import Store

    def run(folder, source, compiles=True):
        folder.mkdir()
        s = Store(folder)
        s.user.write_text(source)
        if compiles:
            s.compile("0/0")
        s.done()
        return [d for d in s.explain() if "argument validation" in d["reason"]]

    (d,) = run(tmp_path / "a", "import torch\nimport torch.distributions as D\n\n"
                                "def f(x):\n    return D.Categorical(logits=x).sample()\n")
    assert d["severity"] == "info" and d["user_frame"]["lineno"] == 5, d
    assert "validate_args=True" in d["fix"]
    assert run(tmp_path / "b", "import torch\nfrom torch.distributions import Normal\n"
                               "n = Normal(0.0, 1.0, validate_args=True)\n") == []
    assert run(tmp_path / "c", "import torch\nn = torch.distributions.Normal(0.0, 1.0)\n",
               compiles=False) == []
