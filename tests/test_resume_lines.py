"""A break inside library code whose user stack names only the call of the compiled module is
put at the compiled function's line torch's resume function names
(`torch_dynamo_resume_in_forward_at_20`; analyses/resume_lines.py). probes33f
dynamic_quant_serve: the quantized Linear's ScriptObject break under `self.fc1(h)` (line 20)
was put at the call `serve(tokens)` (line 32)."""

from __future__ import annotations

from test_explain import Store

LIB = "/usr/lib/python3.11/site-packages/torch/ao/nn/quantized/dynamic/modules/linear.py"
SOURCE = ("import torch\n" * 17 + "def forward(self, tokens):\n    h = self.emb(tokens)\n"
          "    h = torch.relu(self.fc1(h))\n    return self.fc2(h)\n" + "x = 1\n" * 10
          + "probs = serve(tokens)\n" + "y = 1\n" * 5)


def _store(tmp_path, resume: str | None) -> Store:
    s = Store(tmp_path)
    s.user.write_text(SOURCE)
    s.compile("0/0", co_name="forward", lineno=18)
    s.graph_break("0/0", 32, gb_type="Failed to convert args/kwargs to proxy", code="GB0055",
                  extra_frame=LIB)
    if resume:
        s.compile("1/0", co_name=resume, lineno=20)
    return s


def test_a_library_break_is_put_at_the_line_its_resume_function_names(tmp_path):
    (d,) = [d for d in _store(tmp_path, "torch_dynamo_resume_in_forward_at_20").explain()
            if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 20, d["user_frame"]


def test_without_a_resume_function_the_call_stays(tmp_path):
    (d,) = [d for d in _store(tmp_path, None).explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 32, d["user_frame"]
