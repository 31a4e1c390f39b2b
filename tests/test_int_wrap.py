"""Integer results the compiled code computed in 32 bits (issue 29 §4): measured on the
outputs by --check-accuracy (capture/accuracy_compare.py's wraps_32), named in the verdict."""

import torch


def test_int64_results_off_by_multiples_of_2_to_the_32_are_an_overflow():
    """set11/gpu's arange_int64_overflow (pytorch#175966) on the H200: the compiled arange
    product came out 2**33 off; before, the accuracy headline said only "integer/bool values
    differ"."""
    from compdiag.capture.accuracy_compare import Tolerance, compare_output

    eager = torch.arange(0, 11, dtype=torch.int64) * 10**9
    compiled = eager.clone()
    compiled[5:] -= 2 * (1 << 32)
    out = compare_output("output 0", eager, compiled, eager, Tolerance())
    assert not out.ok and "32-bit overflow" in out.detail["reason"]
    other = eager.clone()
    other[3] += 7
    assert "overflow" not in compare_output("output 0", eager, other, eager,
                                            Tolerance()).detail["reason"]
