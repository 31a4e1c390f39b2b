"""A cache bypass whose refused node is the user's own construct (issue 29 §1, the class of
set4's autocast_cache_bypass and custom_function_cache_bypass, on the corpus' own sources:
corpus/cache_bypass_autocast_head.py and cache_bypass_custom_function.py): the line of that
construct, what it is in the user's words, and a fix the user can apply, fed through the
Ingestor as capture feeds it (Dynamo's output graph and the bypass artifact as torch 2.13
writes them). The autocast region's `with` line is found at ingest (cache_events.node's
`with`), so the cache kind reads a stored fact, not the user's file."""

from __future__ import annotations

import json
from pathlib import Path

from compdiag.ingest.sources import keep_sources
from compdiag.ingest.graph_calls import graph_calls, refused_node, refused_target

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
# corpus/cache_bypass_autocast_head.py's forward: the head's Linear (line 19) is the region's
# first op, inside the `with torch.autocast` of line 18
AUTOCAST_SRC = (CORPUS / "cache_bypass_autocast_head.py").read_text()
AUTOCAST_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 16][16, 1]cpu", L_self_modules_trunk_parameters_weight_: "f32[16, 16][16, 1]cpu"):
        l_x_ = L_x_

        # File: {file}:17 in forward, code: h = self.trunk(x).tanh()
        linear: "f32[4, 16][16, 1]cpu" = torch._C._nn.linear(l_x_, L_self_modules_trunk_parameters_weight_);  l_x_ = None
        h: "f32[4, 16][16, 1]cpu" = linear.tanh();  linear = None

        # No stacktrace found for following nodes
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)

        # File: {file}:19 in forward, code: e = self.energy(h)
        e: "bf16[4, 1][1, 1]cpu" = torch._C._nn.linear(h, L_self_modules_trunk_parameters_weight_);  h = None

        # No stacktrace found for following nodes
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = _exit_autocast = None

        # File: {file}:20 in forward, code: return e.float().sum()
        float_1: "f32[4, 1][1, 1]cpu" = e.float();  e = None
        return (float_1,)
'''
AUTOCAST_REASON = ("Unsupported call_function target <function _enter_autocast at 0x7f553a9d7a60>."
                   " \n Function module: torch.amp.autocast_mode, \nFunction name: _enter_autocast")

# corpus/cache_bypass_custom_function.py: RoundSTE.apply at line 21 of quantized()
FUNCTION_SRC = (CORPUS / "cache_bypass_custom_function.py").read_text()
FUNCTION_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_w_: "f32[8, 8][8, 1]cpu", L_x_: "f32[2, 8][8, 1]cpu"):
        l_w_ = L_w_
        l_x_ = L_x_

        # File: {file}:21 in quantized, code: q = RoundSTE.apply(w * 8) / 8  # <- diagnosis
        mul: "f32[8, 8][8, 1]cpu" = l_w_ * 8;  l_w_ = None
        fwd_body_0 = self.fwd_body_0
        bwd_body_0 = self.bwd_body_0
        autograd_function_apply = torch.ops.higher_order.autograd_function_apply(fwd_body_0, bwd_body_0, mul, non_differentiable_idx = [], saved_for_backward_idx = []);  fwd_body_0 = bwd_body_0 = mul = None
        getitem: "f32[8, 8][8, 1]cpu" = autograd_function_apply[0];  autograd_function_apply = None
        q: "f32[8, 8][8, 1]cpu" = getitem / 8;  getitem = None
        return (q,)

    class fwd_body_0(torch.nn.Module):
        def forward(self, mul: "f32[8, 8][8, 1]cpu"):
            # File: {file}:13 in forward, code: return torch.round(x)
            outs: "f32[8, 8][8, 1]cpu" = torch.round(mul);  mul = None
            return ((outs,), ())
'''
FUNCTION_REASON = ("Unsupported call_function target autograd_function_apply. \n Function "
                   "module: torch.ops.higher_order, \nFunction name: autograd_function_apply")


def _bypass_run(tmp_path: Path, src: str, graph: str, reason: str, co_name: str,
                first_line: int, fx_reason: str | None = None, fx_hit: bool = False,
                compiles: int = 1, own: tuple[dict, ...] = ()):
    """explain's cache diagnoses of one run whose compile 0/0 of `co_name` (its def at
    `first_line`) logged Dynamo's output graph, then an AOTAutograd cache bypass with
    `reason` (and, with `fx_reason`, an FX graph cache bypass before it)."""
    from compdiag.analyses.explain import explain
    from compdiag.ingest.ingestor import Ingestor
    from compdiag.store.reader import Reader
    from compdiag.store.writer import Writer

    user = tmp_path / "train.py"
    user.write_text(src)
    w = Writer(tmp_path / "s.db")
    run_id = w.begin_run(source="run", argv=[str(user)], cwd=str(tmp_path))
    ing = Ingestor(w, run_id)
    for data in own:  # capture's own records (compdiag:KIND), as capture feeds them
        text = json.dumps(data).replace("{file}", str(user))
        ing.event(data["kind"], None, {k: v for k, v in json.loads(text).items() if k != "kind"})
    for k in range(compiles):  # (a second compile of the frame: a recompile of it)
        ids = {"frame_id": 0, "frame_compile_id": k, "attempt": 0}
        ing.record({"dynamo_output_graph": {}, **ids}, graph.format(file=user))
        if fx_reason:
            ing.record({"artifact": {"name": "fx_graph_cache_bypass", "encoding": "json"},
                        **ids}, json.dumps({"cache_bypass_reason": fx_reason}))
        if fx_hit:  # Inductor's FX graph cache served the compile's graph
            ing.record({"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, **ids},
                       json.dumps({"key": "fwdkey", "cache_state": "hit", "components": []}))
        ing.record({"artifact": {"name": "aotautograd_cache_bypass", "encoding": "json"},
                    **ids}, json.dumps({"cache_bypass_reason": reason}))
        ing.record({"compilation_metrics": {"co_name": co_name, "co_filename": str(user),
                                            "co_firstlineno": first_line, "graph_op_count": 3},
                    **ids}, None)
    ing.flush()
    keep_sources(w, run_id)  # as capture does when a run ends
    w.end_run(run_id, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        return [d for d in explain(r, run_id) if d.kind == "cache"]


def test_an_autocast_region_bypass_is_at_its_with_line_with_a_fix_that_fits(
        tmp_path: Path) -> None:
    """Before: information at the compile's call ("Nothing to change in your code: the
    function the cache refuses is torch's own"), though the user's autocast region is what
    makes the graph uncacheable. Now: a problem at the `with torch.autocast` line, named."""
    (d,) = _bypass_run(tmp_path, AUTOCAST_SRC, AUTOCAST_GRAPH, AUTOCAST_REASON, "forward", 16)
    assert d.user_frame.lineno == 18 and "torch.autocast" in d.user_frame.line
    assert "torch.autocast region" in d.reason
    assert d.severity == "problem" and "Nothing to change" not in d.fix
    assert "around the compiled call" in d.fix


def test_an_autograd_function_bypass_names_the_function_at_its_apply_line(
        tmp_path: Path) -> None:
    """Before: "Nothing to change in your code" at the compile's call; the user's own
    autograd.Function is what the cache refused, and torch has a flag for it."""
    (d,) = _bypass_run(tmp_path, FUNCTION_SRC, FUNCTION_GRAPH, FUNCTION_REASON, "quantized", 20)
    assert d.user_frame.lineno == 21 and "autograd.Function RoundSTE" in d.reason
    assert "autograd_cache_allow_custom_autograd_functions" in d.fix
    assert d.severity == "problem"


def test_an_aotautograd_only_bypass_while_inductor_served_the_graph_is_information(
        tmp_path: Path) -> None:
    """probes36c afn_setup_context_ok and probes29a scaled_gelu_fn_ok, blind: a correct
    program's autograd.Function made the AOTAutograd cache bypass (torch's default) while the
    FX graph cache served its graphs; a problem on main, the only one, though allowing it
    gained nothing on a warm start. Information now, at the same line, with the same fix."""
    (d,) = [d for d in _bypass_run(tmp_path, FUNCTION_SRC, FUNCTION_GRAPH, FUNCTION_REASON,
                                   "quantized", 20, fx_hit=True) if "bypassed" in d.reason]
    assert d.severity == "info" and d.user_frame.lineno == 21
    assert "autograd_cache_allow_custom_autograd_functions" in d.fix


# A helper of the user's marked allow_in_graph (probes42f allow_in_graph_aot_cache_bypass,
# blind): Dynamo writes the call as `__main___NAME(...)` (its module, dots as underscores).
MARKED_SRC = """import torch


@torch._dynamo.allow_in_graph
def tokens(img, p):
    b, c, h, w = img.shape
    return img.reshape(b, c * h * w // (p * p), p * p)


def forward(img):
    return tokens(img, 2).sum(-1)
"""
MARKED_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_img_: "f32[2, 3, 4, 4][48, 16, 4, 1]cpu"):
        l_img_ = L_img_

        # File: {file}:11 in forward, code: return tokens(img, 2).sum(-1)
        tokens = __main___tokens(l_img_, 2);  l_img_ = None
        sum_1: "f32[2, 12][12, 1]cpu" = tokens.sum(-1);  tokens = None
        return (sum_1,)
'''
MARKED_REASON = ("Unsupported call_function target <function tokens at 0x7f107b6f3c40>. \n "
                 "Function module: __main__, \nFunction name: tokens")
MARKING = {"kind": "allow_in_graph", "function": "tokens", "name": "tokens", "filename": "{file}",
           "first": 4, "last": 7, "call": {"filename": "{file}", "lineno": 4, "name": "<module>",
                                           "line": "@torch._dynamo.allow_in_graph"}}


def test_a_bypass_of_a_function_marked_allow_in_graph_is_at_its_marking(tmp_path: Path) -> None:
    """probes42f: "0 problems", the bypass information at the compiled call with a fix for
    custom ops and autograd.Functions; the graph's node (`__main___tokens(...)`) was not
    found under its module's prefix. Now a problem at the marking, with a fix that works
    (drop the marking, or unsafe_marked_cacheable_functions with the qualified name), even
    while the FX graph cache served the graph (the bypass recurs at every start)."""
    (d,) = [d for d in _bypass_run(tmp_path, MARKED_SRC, MARKED_GRAPH, MARKED_REASON, "forward",
                                   10, fx_hit=True, own=(MARKING,)) if "bypassed" in d.reason]
    assert d.severity == "problem" and d.user_frame.lineno == 4, d
    assert "called untraced at line 11" in d.reason and "allow_in_graph" in d.reason
    assert "unsafe_marked_cacheable_functions" in d.fix and '"__main__.tokens"' in d.fix
    # without the marking the node is still the user's call, at its line
    (tmp_path / "plain").mkdir()
    (plain,) = [d for d in _bypass_run(tmp_path / "plain", MARKED_SRC, MARKED_GRAPH,
                                       MARKED_REASON, "forward", 10, fx_hit=True)
                if "bypassed" in d.reason]
    assert plain.user_frame.lineno == 11


def test_refused_node_reads_the_top_graph_only() -> None:
    calls = graph_calls(FUNCTION_GRAPH.format(file="/u/t.py"))
    assert [c["name"] for c in calls][-1] == "q"  # the bodies' nodes are not the graph's
    node = refused_node(calls, FUNCTION_REASON)
    assert node["frame"]["lineno"] == 21
    node = refused_node(graph_calls(AUTOCAST_GRAPH.format(file="/u/t.py")), AUTOCAST_REASON)
    assert node["frame"] is None and node["after"]["lineno"] == 19
    assert refused_target("Unsupported post grad custom pass") is None
    assert refused_node(calls, None) is None


def test_the_region_line_is_stored_at_ingest(tmp_path: Path) -> None:
    """The `with` statement around an autocast region is a stored fact (cache_events.node's
    `with`), found when the bypass is ingested; on main the cache kind parsed the user's file
    at analysis time."""
    from compdiag.ingest.graph_calls import enclosing_with

    user = tmp_path / "train.py"
    user.write_text(AUTOCAST_SRC)
    node = refused_node(graph_calls(AUTOCAST_GRAPH.format(file=user)), AUTOCAST_REASON)
    assert node["with"]["lineno"] == 18 and "torch.autocast" in node["with"]["line"]
    assert enclosing_with({"filename": str(user), "lineno": 17}) is None
    assert enclosing_with({"filename": str(tmp_path / "gone.py"), "lineno": 3}) is None


# A higher-order op the caches refuse (torch.cond here; any higher-order op's node): a function
# whose def is line 3, the op at line 5, compiled from line 9.
HOP_SRC = ("import torch\n\ndef step(x):\n    x = x + 1\n"
           "    y = torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))\n"
           "    return y * 2\n\n\ntorch.compile(step)(torch.randn(8))\n")
HOP_GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8][1]cpu"):
        l_x_ = L_x_

        # File: {file}:4 in step, code: x = x + 1
        x: "f32[8][1]cpu" = l_x_ + 1;  l_x_ = None

        # File: {file}:5 in step, code: y = torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))
        sum_1: "f32[][]cpu" = x.sum()
        gt: "b8[][]cpu" = sum_1 > 0;  sum_1 = None
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (x,));  gt = cond_true_0 = cond_false_0 = x = None
        y: "f32[8][1]cpu" = cond[0];  cond = None

        # File: {file}:6 in step, code: return y * 2
        mul: "f32[8][1]cpu" = y * 2;  y = None
        return (mul,)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_: "f32[8][1]cpu"):
            # File: {file}:5 in <lambda>, code: y = torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))
            sin: "f32[8][1]cpu" = l_x_.sin();  l_x_ = None
            return (sin,)
'''
HOP_FX_REASON = "Can't cache HigherOrderOperator: cond"
HOP_AOT_REASON = ("Unsupported call_function target cond. \n Function module: "
                  "torch.ops.higher_order, \nFunction name: cond")


def test_every_cache_bypass_of_a_higher_order_op_is_at_its_user_line(tmp_path: Path) -> None:
    """set5's cond_cache_bypass, as a class: both caches refuse a graph holding a higher-order
    op, each naming it in its own words. On main the FX graph cache's reason ("Can't cache
    HigherOrderOperator: cond") named no node, and a node no rule knew was not the user's
    construct: both bypasses fell back to the function (its `def` here, the first compile's
    call in set5's run), the AOTAutograd one as "nothing to change, torch's own". Now every bypass is at the op's line, named, a problem
    with the higher-order op's fix, and one diagnosis for the one construct, whatever words
    each cache used for it (on main: two, one per reason)."""
    (d,) = _bypass_run(tmp_path, HOP_SRC, HOP_GRAPH, HOP_AOT_REASON, "step", 3,
                       fx_reason=HOP_FX_REASON, compiles=2)
    assert set(d.details.caches) == {"fx_graph", "aotautograd"}
    assert d.user_frame.lineno == 5 and "torch.cond" in d.user_frame.line
    assert "higher-order op `cond`" in d.reason and "(line 5)" in d.reason
    assert d.severity == "problem" and "Nothing to change" not in d.fix
    assert "higher-order op" in d.fix and "function of its own" in d.fix
    assert refused_target(HOP_FX_REASON) == "cond"


def test_a_higher_order_op_compiled_once_is_information(tmp_path: Path) -> None:
    """probes37d cond_newton_clip_ok: a correct program using torch.cond, compiled once, got
    the bypass as its one problem, with a fix to take torch.cond out of the compiled code. The
    program uses torch's API as meant and nothing in the run paid for the bypass: it is
    information, said as compiled once; compiled again (the test above), a problem."""
    (d,) = _bypass_run(tmp_path, HOP_SRC, HOP_GRAPH, HOP_AOT_REASON, "step", 3,
                       fx_reason=HOP_FX_REASON)
    assert d.severity == "info" and "compiled once in this run" in d.reason, d
    assert d.user_frame.lineno == 5
