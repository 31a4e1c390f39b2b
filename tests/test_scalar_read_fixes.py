"""The fix for a tensor's value read into Python follows the call the user's line makes.
probes40a convnet_np_prod_flatten (hexgrad/kokoro#91), blind: `int(np.prod(x.shape[1:]))`
inside a compiled forward; the fix said "compute it with torch so it stays a tensor", which
moved the break to the `view` it fed, where `math.prod` over the sizes gave none. Fails on the
code before (the NumPy-scalar fix for a NumPy call over sizes)."""

from __future__ import annotations

import pytest

from compdiag.analyses.scalar_reads import NUMPY_SCALAR_FIX, NUMPY_SIZES_FIX, scalar_read_fix

GB = "Data-dependent operator"
CTX = "aten._local_scalar_dense.default"


@pytest.mark.parametrize("line", ["n = int(np.prod(x.shape[1:]))",
                                  "flat = x.view(x.size(0), np.prod(x.size()[1:]))",
                                  "k = numpy.sum(h.shape)"])
def test_numpy_over_sizes_says_math_prod(line):
    assert scalar_read_fix(GB, "", CTX, line) == NUMPY_SIZES_FIX


def test_numpy_over_values_keeps_the_torch_fix():
    assert scalar_read_fix(GB, "", CTX, "g = np.random.uniform(-6.0, 6.0)") == NUMPY_SCALAR_FIX
