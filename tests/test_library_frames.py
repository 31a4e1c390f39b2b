"""Issue 29 §1, a library frame is not the user line: an Inductor-stage fact about an op
reached through library code (torch.distributions, a torch.nn.functional wrapper, a helper
in site-packages) points at the user line that called into the library. torch's post-grad
graph text names only a node's innermost frame (the library's); capture keeps the user's part
of each such node's stack from the Dynamo graph (capture/node_stacks.py), ingest joins it to
the post-grad nodes (graph_nodes.stack) and every kind reads the nodes at their user frame
(RunContext.graph_nodes). Fast: trace-shaped records through the Ingestor, no compile."""

from __future__ import annotations

import json
from types import SimpleNamespace

import torch.fx

from compdiag.capture import node_stacks
from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from locate_check import library_line_problems
from test_explain import Store, _call

LIB = "/opt/venv/lib/python3.11/site-packages/torch/distributions"
# The same library where the cached graph's process had it (another checkout's venv).
OTHER_LIB = "/work/other/.venv/lib/python3.11/site-packages/torch/distributions"


def _gamma_stack(user: str, lib: str = LIB) -> str:
    """node.meta["stack_trace"] of the _standard_gamma node, as Dynamo writes it."""
    return (f'  File "{user}", line 13, in f\n    return distribution.sample((n,))\n'
            f'  File "{lib}/distribution.py", line 181, in sample\n'
            f'    return self.rsample(sample_shape)\n'
            f'  File "{lib}/gamma.py", line 81, in rsample\n'
            f'    value = _standard_gamma(self.concentration.expand(shape))\n'
            f'  File "{lib}/gamma.py", line 15, in _standard_gamma\n'
            f'    return torch._standard_gamma(concentration)\n')


def _post_grad(lib: str) -> str:
    return (f"        # File: {lib}/gamma.py:15 in _standard_gamma, code: return "
            "torch._standard_gamma(concentration)\n"
            '        _standard_gamma: "f32[s0][1]cpu" = '
            "torch.ops.aten._standard_gamma.default(expand);  expand = None\n")


def _gamma_run(s: Store, *, stacks: bool = True, graph_lib: str = LIB) -> None:
    """gamma_sample_dynamic's facts: f (def line 3) called at line 18; its post-grad graph's
    _standard_gamma node names gamma.py:15 only; Inductor's FallbackKernel perf hint."""
    s.compile("0/0")
    _call(s, "0/0", [18])
    if stacks:
        part = node_stacks.cut_part(_gamma_stack(str(s.user)))
        s.ing.event("node_stacks", "0/0", {}, payload=json.dumps(
            [{"stack": part, "nodes": ["_standard_gamma"]}]))
    s.post_grad("0/0", _post_grad(graph_lib))
    s.ing.event("perf_hints", "0/0", {},
                "Using FallbackKernel: torch.ops.aten._standard_gamma.default")


def test_a_fallback_reached_through_library_code_points_at_the_user_line(tmp_path):
    """benchmarks/explain_holdout/set2/gamma_sample_dynamic's class: the _standard_gamma
    fallback at the user's `distribution.sample` line (13), evidence fx_node. On main it
    pointed at the compiled call (line 18): the graph text's gamma.py:15 was all ingest kept
    of the node's stack."""
    s = Store(tmp_path)
    _gamma_run(s)
    (d,) = [d for d in s.explain() if d["kind"] == "perf"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (13, "fx_node")


def test_a_cached_graph_from_another_install_still_meets_its_stacks(tmp_path):
    """A warm run's post-grad graph comes from the FX graph cache with the paths of the
    process that compiled it (another checkout's venv); the stacks Dynamo gave this run join
    it by the library-relative path and line."""
    s = Store(tmp_path)
    _gamma_run(s, graph_lib=OTHER_LIB)
    (d,) = [d for d in s.explain() if d["kind"] == "perf"]
    assert d["user_frame"]["lineno"] == 13


def test_property_rejects_a_library_op_diagnosed_at_the_call(tmp_path):
    """locate_check.library_line_problems holds on the store above and rejects the document
    main made of it (the fallback at the call, line 18) and one whose line is torch's file."""
    s = Store(tmp_path)
    _gamma_run(s)
    s.done()
    with Reader(s.path) as r:
        doc = explain_document(r, s.run_id)["diagnoses"]
        assert library_line_problems(r, s.run_id, doc) == []
        at_call = [{**doc[0], "user_frame": {**doc[0]["user_frame"], "lineno": 18,
                                             "evidence": "call"}}]
        (problem,) = library_line_problems(r, s.run_id, at_call)
        assert "user_script.py:13" in problem
        in_torch = [{**doc[0], "user_frame": {"filename": f"{LIB}/gamma.py", "lineno": 15}}]
        (problem,) = library_line_problems(r, s.run_id, in_torch)
        assert "points at library code" in problem


def test_without_stacks_nothing_changes(tmp_path):
    """An imported trace log has no capture records: the node keeps torch's frame and the
    fallback falls back to the call, as before."""
    s = Store(tmp_path)
    _gamma_run(s, stacks=False)
    (d,) = [d for d in s.explain() if d["kind"] == "perf"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (18, "call")


def test_a_kernel_of_library_ops_shows_the_user_line(tmp_path):
    """A kernel's user lines (show's kernels, a CUDA-graph split's or an epilogue miss's
    line) come from its nodes' user frames, not the library line (on main: gamma.py:81)."""
    s = Store(tmp_path)
    s.compile("0/0")
    rsample = _gamma_stack(str(s.user)).split(f'  File "{LIB}/gamma.py", line 15')[0]
    s.ing.event("node_stacks", "0/0", {}, payload=json.dumps(
        [{"stack": node_stacks.cut_part(rsample), "nodes": ["div"]}]))
    s.post_grad("0/0", f"        # File: {LIB}/gamma.py:81 in rsample, code: value = "
                "_standard_gamma(self.concentration.expand(shape))\n"
                '        div: "f32[s0][1]cpu" = torch.ops.aten.div.Tensor(arg0_1, 2.0)\n')
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "inductor_output_code": {}},
                 "cpp_fused_div_0 = async_compile.cpp_pybinding(['float*'], r\'\'\'\n"
                 "extern \"C\" void kernel(float* out_ptr0) {}\n\'\'\')\n")
    s.done()
    with Reader(s.path) as r:
        lines = [ln for k in r.kernels(s.run_id, "0/0") for ln in k.get("user_lines") or []]
    assert lines and all("site-packages" not in ln for ln in lines), lines
    assert any("user_script.py:13" in ln for ln in lines), lines


def test_capture_keeps_only_the_cut_part_of_library_stacks():
    """capture/node_stacks.py on a Dynamo graph: the user's part of a library node's stack
    (from the first user frame seen from the innermost end), nothing for a node whose
    innermost frame is the user's, one entry per distinct stack."""
    user = "/home/me/proj/train.py"
    g = torch.fx.Graph()
    x = g.placeholder("x")
    lib1 = g.call_function(torch.neg, (x,))
    lib2 = g.call_function(torch.abs, (lib1,))
    own = g.call_function(torch.sin, (lib2,))
    g.output(own)
    lib1.meta["stack_trace"] = lib2.meta["stack_trace"] = \
        f'  File "/usr/lib/python3.11/runpy.py", line 88, in _run_code\n    exec(code)\n' \
        + _gamma_stack(user)
    own.meta["stack_trace"] = f'  File "{user}", line 20, in f\n    y = x.sin()\n'
    events = []
    ing = SimpleNamespace(event=lambda *a, **k: events.append((a, k)))
    node_stacks._record(SimpleNamespace(ing=ing), torch.fx.GraphModule({}, g))
    ((args, kw),) = events
    assert args[0] == "node_stacks"
    (entry,) = json.loads(kw["payload"])
    assert (entry["nodes"], entry["count"]) == ([lib1.name, lib2.name], 2)
    assert entry["stack"].lstrip().startswith(f'File "{user}", line 13')
    assert entry["stack"].rstrip().endswith("torch._standard_gamma(concentration)")
