"""A library loop torch.compile wrapped is one graph-break diagnosis (probes28a gpt2_compile_generate: `torch.compile(model.generate)`
broke eleven times inside transformers' generation loop; the top was one of those breaks with a
`capture_scalar_outputs` fix, and the `torch.compile` line was never named)."""

from __future__ import annotations

from test_explain import Store, _ids

LIB = "/usr/lib/python3.11/site-packages/transformers/generation/utils.py"


def _run(tmp_path, compiled: str, co_name: str = "generate") -> list[dict]:
    s = Store(tmp_path)
    s.user.write_text("import torch\nmodel = None\n"
                      f"gen = torch.compile({compiled})\n" + "x = 1\n" * 2
                      + "out = gen(x)\n" + "y = 2\n" * 20)
    s.ing.record({**_ids("0/0"), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids("0/0"), "str": [LIB, 2]}, None)
    s.ing.record({**_ids("0/0"), "dynamo_start": {"stack": [
        {"line": 6, "name": "<module>", "filename": 1},
        {"line": 2900, "name": co_name, "filename": 2}]}}, None)
    s.ing.record({**_ids("0/0"), "compilation_metrics": {
        "co_name": co_name, "co_filename": LIB, "co_firstlineno": 2890}}, None)
    s.compile("1/0", co_name="_prepare", lineno=3)
    s.graph_break("0/0", 6, extra_frame=LIB)
    s.graph_break("1/0", 6, gb_type="Data-dependent branching", code="GB0170", extra_frame=LIB)
    return s.explain()


def test_a_library_loop_compiled_is_named_at_its_torch_compile_line(tmp_path):
    diags = _run(tmp_path, "model.generate")
    top = diags[0]
    assert top["kind"] == "graph_break" and top["user_frame"]["lineno"] == 3
    assert top["reason"].startswith("torch.compile wraps `model.generate`, at line 3: 2 graph")
    assert "torch.compile(model)" in top["fix"]
    assert {c["kind"] for c in top["consequences"]} == {"graph_break"}
    assert [d["user_frame"]["lineno"] for d in diags if d["kind"] == "graph_break"] == [3]


def test_a_library_model_compiled_whole_keeps_its_breaks(tmp_path):
    """`torch.compile(model)` (a timm or transformers model's forward) breaking in the
    library: each break is its own diagnosis, as before."""
    diags = _run(tmp_path, "model", co_name="forward")
    assert not [d for d in diags if "torch.compile wraps" in d["reason"]]
    assert [d for d in diags if d["kind"] == "graph_break"]
