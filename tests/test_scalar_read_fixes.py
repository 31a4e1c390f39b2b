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


GRAMMAR_SRC = """import torch

OPS = [20, 21]


def allowed(sent):
    last = sent[-1].item()
    if last in OPS:
        return [1, 2]
    return [3]


@torch.compile
def step(ids):
    return torch.tensor(allowed(ids))
"""


def test_a_value_read_then_branched_on_below_gets_the_branch_fix(tmp_path) -> None:
    """probes43c hf_gpt2_prefix_allowed_fn_item, blind: `last = sent[-1].item()` and, a line
    below, `if last in OPS:`. The fix offered capture_scalar_outputs, which only moved the
    break to the `if`; the branch is what needs the value."""
    from compdiag.analyses.scalar_reads import ITEM_FIX, branched_later
    from test_break_consequences import _break
    from test_explain import Store, _ids

    assert branched_later(GRAMMAR_SRC, 7, "    last = sent[-1].item()") == (8, "if last in OPS:")
    assert branched_later(GRAMMAR_SRC, 7, "    sent[-1].item()") is None  # assigns nothing
    s = Store(tmp_path)
    s.user.write_text(GRAMMAR_SRC)
    s.compile("0/0", co_name="step", lineno=13)
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 7, "last = sent[-1].item()",
                        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
                        "GB0124", "Use `torch._dynamo.config.capture_scalar_outputs = True`."))
    top = s.explain()[0]
    assert top["kind"] == "graph_break" and top["user_frame"]["lineno"] == 7, top
    assert top["fix"] != ITEM_FIX and "the Python branch at line 8" in top["fix"], top["fix"]
