"""An integer output that differs says at how many positions: the max abs of an index output
(topk's, argmax's) is a distance between item ids, not an error. probes39a
retrieval_bf16_mul_sum_topk, blind: "max abs 1.58e+03 (integer/bool values differ)" where
28 of 64 users got another top-10; the count was nowhere. Fails on the code before (no count)."""

from __future__ import annotations

import torch

from compdiag.capture.accuracy_compare import Tolerance, compare_outputs


def test_an_index_output_that_differs_counts_the_positions():
    eager = torch.tensor([[3, 1500, 7], [2, 9, 11]])
    compiled = torch.tensor([[3, 17, 7], [2, 11, 9]])
    (out,) = compare_outputs((eager,), (compiled,), (eager,), Tolerance())
    assert not out.ok
    assert out.detail["reason"] == "integer/bool values differ at 3 of 6 positions", out.detail
    assert out.detail["differing"] == 3


def test_equal_integers_say_nothing():
    t = torch.arange(6)
    (out,) = compare_outputs((t,), (t.clone(),), (t,), Tolerance())
    assert out.ok and "reason" not in (out.detail or {})


def test_a_reference_of_zeros_gives_a_relative_error_of_the_results_scale():
    """probes40b jacobi_snapshot_inplace, blind: an input written in place was all zeros in
    the float64 reference, and the relative RMSE came out 2.52e+296 (scale 1e-300)."""
    from compdiag.capture.accuracy_compare import fp64_errors

    zero = torch.zeros(8, dtype=torch.float64)
    errs = fp64_errors(torch.zeros(8), torch.ones(8), zero)
    assert errs is not None and 0.5 <= errs["compiled_rel"] <= 2.0, errs
    assert errs["eager_rel"] == 0.0


def test_a_described_node_carries_its_dtype():
    """probes40b argmax_ties_bf16_div: the op computing wrongly was a bfloat16 division, its
    consumer an integer count; the fix needs the op's dtype to offer emulate_precision_casts."""
    import torch.fx

    from compdiag.capture.accuracy_compare import _described

    gm = torch.fx.symbolic_trace(lambda x: (x / 3.0).argmax())
    div = next(n for n in gm.graph.nodes if n.op == "call_function")
    div.meta["example_value"] = torch.ones(2, dtype=torch.bfloat16)
    assert _described(div)["dtype"] == "torch.bfloat16"
