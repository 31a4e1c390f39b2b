"""A cache bypass whose refused node is the user's own construct (issue 29 §1, set4's
autocast_cache_bypass and custom_function_cache_bypass): the line of that construct, what it
is in the user's words, and a fix the user can apply, fed through the Ingestor as capture
feeds it (Dynamo's output graph and the bypass artifact as torch 2.13 writes them)."""

from __future__ import annotations

import json
from pathlib import Path

from compdiag.ingest.graph_calls import graph_calls, refused_node, refused_target

AUTOCAST_SRC = """import torch

w = torch.randn(16, 16, requires_grad=True)


def step(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
    return y.float().relu().sum()


torch.compile(step)(torch.randn(4, 16)).backward()
"""
AUTOCAST_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 16][16, 1]cpu", G_w_: "f32[16, 16][16, 1]cpu"):
        l_x_ = L_x_
        g_w_ = G_w_

        # No stacktrace found for following nodes
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)

        # File: {file}:8 in step, code: y = x @ w
        y: "bf16[4, 16][16, 1]cpu" = l_x_ @ g_w_;  l_x_ = g_w_ = None

        # No stacktrace found for following nodes
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = _exit_autocast = None

        # File: {file}:9 in step, code: return y.float().relu().sum()
        float_1: "f32[4, 16][16, 1]cpu" = y.float();  y = None
        return (float_1,)
'''
AUTOCAST_REASON = ("Unsupported call_function target <function _enter_autocast at 0x7f553a9d7a60>."
                   " \n Function module: torch.amp.autocast_mode, \nFunction name: _enter_autocast")

FUNCTION_SRC = """import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def step(x):
    return Scale.apply(x).sin().sum()


torch.compile(step)(torch.randn(8, requires_grad=True)).backward()
"""
FUNCTION_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8][1]cpu"):
        l_x_ = L_x_

        # File: {file}:15 in step, code: return Scale.apply(x).sin().sum()
        fwd_body_0 = self.fwd_body_0
        bwd_body_0 = self.bwd_body_0
        autograd_function_apply = torch.ops.higher_order.autograd_function_apply(fwd_body_0, bwd_body_0, l_x_, non_differentiable_idx = [], saved_for_backward_idx = []);  fwd_body_0 = bwd_body_0 = l_x_ = None
        getitem: "f32[8][1]cpu" = autograd_function_apply[0];  autograd_function_apply = None
        return (getitem,)

    class fwd_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[8][1]cpu"):
            # File: {file}:7 in forward, code: return x * 2
            outs: "f32[8][1]cpu" = l_x_ * 2;  l_x_ = None
            return ((outs,), ())
'''
FUNCTION_REASON = ("Unsupported call_function target autograd_function_apply. \n Function "
                   "module: torch.ops.higher_order, \nFunction name: autograd_function_apply")


def _bypass_run(tmp_path: Path, src: str, graph: str, reason: str):
    """explain's cache diagnoses of one run whose compile 0/0 of `step` logged Dynamo's
    output graph, then an AOTAutograd cache bypass with `reason`."""
    from compdiag.analyses.explain import explain
    from compdiag.ingest.ingestor import Ingestor
    from compdiag.store.reader import Reader
    from compdiag.store.writer import Writer

    user = tmp_path / "train.py"
    user.write_text(src)
    w = Writer(tmp_path / "s.db")
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    ing.record({"dynamo_output_graph": {}, **ids}, graph.format(file=user))
    ing.record({"artifact": {"name": "aotautograd_cache_bypass", "encoding": "json"}, **ids},
               json.dumps({"cache_bypass_reason": reason}))
    ing.record({"compilation_metrics": {"co_name": "step", "co_filename": str(user),
                                        "co_firstlineno": src.splitlines().index(
                                            next(l for l in src.splitlines()
                                                 if l.startswith("def step"))) + 1,
                                        "graph_op_count": 3}, **ids}, None)
    ing.flush()
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        return [d for d in explain(r, run_id) if d.kind == "cache"]


def test_an_autocast_region_bypass_is_at_its_with_line_with_a_fix_that_fits(
        tmp_path: Path) -> None:
    """Before: information at the compile's call ("Nothing to change in your code: the
    function the cache refuses is torch's own"), though the user's autocast region is what
    makes the graph uncacheable. Now: a problem at the `with torch.autocast` line, named."""
    (d,) = _bypass_run(tmp_path, AUTOCAST_SRC, AUTOCAST_GRAPH, AUTOCAST_REASON)
    assert d.user_frame.lineno == 7 and "torch.autocast" in d.user_frame.line
    assert "torch.autocast region" in d.reason
    assert d.severity == "problem" and "Nothing to change" not in d.fix
    assert "around the compiled call" in d.fix


def test_an_autograd_function_bypass_names_the_function_at_its_apply_line(
        tmp_path: Path) -> None:
    """Before: "Nothing to change in your code" at the compile's call; the user's own
    autograd.Function is what the cache refused, and torch has a flag for it."""
    (d,) = _bypass_run(tmp_path, FUNCTION_SRC, FUNCTION_GRAPH, FUNCTION_REASON)
    assert d.user_frame.lineno == 15 and "autograd.Function Scale" in d.reason
    assert "autograd_cache_allow_custom_autograd_functions" in d.fix
    assert d.severity == "problem"


def test_refused_node_reads_the_top_graph_only() -> None:
    calls = graph_calls(FUNCTION_GRAPH.format(file="/u/t.py"))
    assert [c["name"] for c in calls][-1] == "getitem"  # the bodies' nodes are not the graph's
    node = refused_node(calls, FUNCTION_REASON)
    assert node["frame"]["lineno"] == 15
    node = refused_node(graph_calls(AUTOCAST_GRAPH.format(file="/u/t.py")), AUTOCAST_REASON)
    assert node["frame"] is None and node["after"]["lineno"] == 8
    assert refused_target("Unsupported post grad custom pass") is None
    assert refused_node(calls, None) is None
