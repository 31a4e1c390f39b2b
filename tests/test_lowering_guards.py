"""analyses/lowering_guards.py: a size guard torch's compiler code added (Inductor's lowering
of adaptive pooling) is said at the op's line with what made the size a constant. Before:
"forward() branches in Python on (x.size()[2] // 4)" at the call, with `torch.where` advice,
for a program with no branch (probes46b multires_adaptive_pool_dynamic). No compile: a stub
of the run's context."""

from __future__ import annotations

from compdiag.analyses.lowering_guards import torch_specialised
from compdiag.ingest.specializer import torch_specializer


class Ctx:
    def graph_nodes(self, cid):
        return [{"op": "convolution", "filename": "/m.py", "lineno": 31, "line": "x = f(x)"},
                {"op": "_adaptive_avg_pool2d", "filename": "/m.py", "lineno": 32,
                 "line": "x = self.pool(x)"}]


def test_the_guard_origin_names_the_lowering_and_the_op_line():
    evs = [{"compile_id": "0/1", "failed_guard": "(x.size()[2] // 4) == 8  # "
            "(_inductor/lowering.py:5983 in _adaptive_avg_pool2d)"}]
    found = torch_specialised(Ctx(), evs)
    assert (found.fn, found.where, found.frame.lineno) == (
        "_adaptive_avg_pool2d", "torch/_inductor/lowering.py:5983", 32)
    assert "Inductor's lowering of adaptive_avg_pool2d" in found.said_in("recompiled on x")
    assert "x.mean((-2, -1), keepdim=True)" in found.fix


def test_without_an_origin_comment_the_specialisations_torch_frame_decides():
    evs = [{"compile_id": "0/1", "failed_guard": "tensor 'x' size mismatch at index 2"}]
    assert torch_specialised(Ctx(), evs) is None
    spec = {"torch_frame": '{"file": "torch/_inductor/lowering.py", "lineno": 5983, '
                           '"name": "_adaptive_avg_pool2d"}'}
    found = torch_specialised(Ctx(), evs, spec)
    assert found is not None and found.frame.lineno == 32
    said = found.said_in("size x changed; torch's own code specialises it to a constant, no "
                         "line of yours")
    assert said == ("size x changed; Inductor's lowering of adaptive_avg_pool2d "
                    "(torch/_inductor/lowering.py:5983) specialises it to a constant")
    # a user's guard comment (not torch's compiler) is no origin
    user = [{"compile_id": "0/1", "failed_guard": "L['n'] == 3  # (m.py:9 in f)"}]
    assert torch_specialised(Ctx(), user) is None


def test_the_innermost_compiler_frame_of_the_live_stack_is_kept():
    t = "/v/lib/python3.11/site-packages/torch/"
    frames = [{"filename": "/m.py", "lineno": 3, "name": "<module>"},
              {"filename": t + "_inductor/graph.py", "lineno": 1940, "name": "run_node"},
              {"filename": t + "_inductor/lowering.py", "lineno": 5983,
               "name": "_adaptive_avg_pool2d"},
              {"filename": t + "fx/experimental/symbolic_shapes.py", "lineno": 8107,
               "name": "evaluate_expr"}]
    assert torch_specializer(frames) == {"file": "torch/_inductor/lowering.py",
                                         "lineno": 5983, "name": "_adaptive_avg_pool2d"}
    assert torch_specializer(frames[:2]) is None
