"""An indexed write whose indices repeat is the accuracy difference's cause, at its line
(capture/accuracy_localise.duplicate_write, analyses/duplicate_writes.py). probes38g
tgn_memory_last_write, blind: `last[dst] = m` keeps "the latest message per destination" with
repeated destinations; compiled code kept other rows than eager, and explain said
"ill-conditioned, not a compiler bug" at the next line with a float64 fix that left the
difference."""

from __future__ import annotations

import operator

import torch
import torch.fx

from compdiag.analyses.duplicate_writes import duplicate_words
from compdiag.capture.accuracy_localise import duplicate_write


def _graph(value_is_rows: bool) -> torch.fx.GraphModule:
    """`last = zeros_like(mem); last[dst] = m` (or `= True`), as Dynamo writes it:
    operator.setitem on the tensor (symbolic_trace does not trace an item assignment)."""
    g = torch.fx.Graph()
    mem, dst, m = g.placeholder("mem"), g.placeholder("dst"), g.placeholder("m")
    last = g.call_function(torch.zeros_like, (mem,))
    g.call_function(operator.setitem, (last, dst, m if value_is_rows else True))
    g.output(last)
    return torch.fx.GraphModule(torch.nn.Module(), g)


def test_a_write_of_rows_at_repeated_indices_is_found():
    gm = _graph(True)
    mem, m = torch.zeros(6, 3), torch.randn(5, 3)
    found = duplicate_write(gm, [mem, torch.tensor([1, 4, 1, 2, 4]), m],
                            torch.random.get_rng_state())
    assert found is not None and found["duplicate_writes"] == 2, found
    assert duplicate_write(gm, [mem, torch.tensor([1, 4, 0, 2, 3]), m],
                           torch.random.get_rng_state()) is None


def test_a_constant_written_at_repeated_indices_is_not():
    gm = _graph(False)
    assert duplicate_write(gm, [torch.zeros(6, 3), torch.tensor([1, 1, 2]), torch.ones(3, 3)],
                           torch.random.get_rng_state()) is None


def test_the_words_name_the_line_and_the_undefined_order():
    node = {"node": "setitem", "op": "setitem", "duplicate_writes": 3,
            "user_frame": {"filename": "/u/tgn.py", "lineno": 20,
                           "line": "last[dst] = m   # latest message"}}
    reason, explanation, fix = duplicate_words(node, "output 0")
    assert reason.startswith("output 0 differs from eager because `last[dst] = m` writes 3 "
                             "repeated indices (index_put_"), reason
    assert "undefined" in reason and "float64 does not help" in explanation
    assert "scatter_reduce" in fix
    assert duplicate_words({"node": "mul", "op": "mul"}, "output 0") is None


def test_the_same_row_written_twice_leaves_nothing_undefined():
    gm = _graph(True)
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    assert duplicate_write(gm, [torch.zeros(6, 2), torch.tensor([1, 4, 1]), m],
                           torch.random.get_rng_state()) is None
