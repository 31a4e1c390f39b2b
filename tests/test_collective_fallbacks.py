"""A collective in a compiled graph is no fallback to fix: Inductor lowers `_c10d_functional`
ops to c10d's own kernels on purpose (torch/_inductor/comm_lowering.py) and still warns
"Using FallbackKernel" for each. probes40d tp_mlp_dtensor_ok and clip_allgather_loss_ok,
blind, correct programs: `all_reduce_` and `wait_tensor` were two perf problems each with
"replace the op with one Inductor lowers". Fails on the code before (both True)."""

from __future__ import annotations

import pytest

from compdiag.analyses.diagnoses.perf_hints import collective_fallback


@pytest.mark.parametrize("op", ["_c10d_functional.all_reduce_.default",
                                "_c10d_functional.wait_tensor.default",
                                "_c10d_functional.all_gather_into_tensor.default",
                                "_c10d_functional.reduce_scatter_tensor.default"])
def test_a_collective_is_by_design(op):
    assert collective_fallback(f"Using FallbackKernel: torch.ops.{op}")


@pytest.mark.parametrize("op", ["aten.cumsum.default", "aten.searchsorted.Tensor",
                                "mylib.fused.default"])
def test_an_op_inductor_could_generate_is_not(op):
    assert not collective_fallback(f"Using FallbackKernel: torch.ops.{op}")
