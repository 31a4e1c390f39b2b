"""A compiler stage failing on a size that depends on the data. probes32b simclr_info_nce:
`similarity[~mask]` under fullgraph=True made Inductor raise "AssertionError: u12 -> u0 (in
op torch.ops.aten.index.Tensor)"; explain repeated it, and its fix called aten's index "a
custom op only your program registers" (`torch.ops.torch.ops.aten.index.Tensor`)."""

from __future__ import annotations

from compdiag.analyses.unbacked_origin import data_dependent


def test_unbacked_sizes_and_the_op_that_made_them_are_named():
    said = data_dependent("AssertionError: u12 -> u0", "torch.ops.aten.index.Tensor")
    assert said == (": an output size that depends on the data (`x[mask]` with a boolean mask;"
                    " unbacked u12, u0)"), said
    assert "unbacked u3" in data_dependent("Eq(u3, 4) failed", None)
    assert data_dependent("expected 3 but got 4", "aten.index.Tensor") is None
    # a guard torch could not decide on is unbacked_origin's (the read that made it)
    assert data_dependent("Could not guard on data-dependent expression Eq(u5, 0)", None) is None


def test_an_aten_op_named_with_its_prefix_is_torchs_not_a_custom_op():
    from types import SimpleNamespace

    from compdiag.analyses.failure_fixes import minify_unavailable
    ctx = SimpleNamespace(run={"source": "run"}, run_id=1, r=SimpleNamespace(
        kept_failure_graphs=lambda run: {"0/0"}))
    said = minify_unavailable(ctx, "0/0", "boom", "torch.ops.aten.index.Tensor")
    assert said is None or "custom op" not in said, said
    custom = minify_unavailable(ctx, "0/0", "boom", "torch.ops.mylib.scale.default")
    assert custom is not None and "torch.ops.mylib.scale.default" in custom, custom
    assert "torch.ops.torch.ops" not in custom


def test_a_cache_bypass_on_torchs_effect_wrapper_is_torchs_own():
    """probes32g darcy_fd_solve_ok: `torch.linalg.solve`'s error check is an effectful op
    Dynamo wraps in `with_effects`, which the FX graph cache cannot serialize: a problem on a
    correct program before, whose only fix was not to compile the solve."""
    from compdiag.analyses.diagnoses.cache import torch_own

    assert torch_own("Can't cache HigherOrderOperator: with_effects")
    assert not torch_own("Can't cache HigherOrderOperator: cond")
