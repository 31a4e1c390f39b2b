"""torch's warning that an API ran its slow eager path is a perf problem at the call
(perf_hints' EAGER_PATHS). probes37d flex_regional_eager_attn: a block's linear layers were
compiled one by one and its flex_attention call left in eager; torch warned "flex_attention
called without torch.compile()" at line 23, and explain never said it."""

from __future__ import annotations

from test_explain import Store

WARNING = ("flex_attention called without torch.compile() - this will use an unfused "
           "implementation that materializes the full scores matrix instead of generating a "
           "fused kernel.\n\nSOLUTION: Use torch.compile(flex_attention)(...)\n")


def _perf(tmp_path, compiled_too: bool) -> list[dict]:
    s = Store(tmp_path)
    s.compile("0/0")
    call = {"filename": str(s.user), "lineno": 23, "name": "forward", "line": "line_23 = 23"}
    s.w.insert("torch_warnings", run_id=s.run_id, compile_id=None, category="UserWarning",
               message=WARNING, filename="flex_attention.py", lineno=2481, call=call)
    if compiled_too:  # the same program runs flex_attention compiled as well
        s.w.insert("graph_nodes", run_id=s.run_id, compile_id="0/0", seq=0, node="flex",
                   op="call_function", target="torch.ops.higher_order.flex_attention",
                   meta=None, filename=str(s.user), lineno=30, line="line_30 = 30", stack=None)
    return [d for d in s.explain() if d["kind"] == "perf"]


def test_flex_attention_left_uncompiled_is_a_perf_problem_at_its_call(tmp_path):
    (d,) = _perf(tmp_path, compiled_too=False)
    assert d["severity"] == "problem" and d["user_frame"]["lineno"] == 23, d
    assert "flex_attention runs uncompiled" in d["reason"] and "compile()" in d["fix"]


def test_an_uncompiled_reference_beside_a_compiled_call_is_information(tmp_path):
    (d,) = _perf(tmp_path, compiled_too=True)
    assert d["severity"] == "info", d
