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


NESTED = ("import torch\n" * 9 + "class PositionalEncoding:\n" + "    x = 1\n" * 10
          + "    def forward(self, x):\n"
          "        x = x + Variable(self.pe[:, : x.size(1)], requires_grad=False)\n"
          "        return self.dropout(x)\n" + "    y = 1\n" * 11
          + "    def forward(self, ids):\n        x = self.pos(self.embed(ids))\n"
          "        return self.cls(x)\n" + "z = 1\n" * 10)


def test_a_break_in_a_callee_compiled_on_its_own_stays_in_the_callee(tmp_path):
    """probes34a posenc_variable_classifier: `Variable(...)` at 22 inside
    PositionalEncoding.forward, reached from `self.pos(...)` at 36. Dynamo could not inline
    it, broke in the outer forward, then compiled the inner forward on its own and broke at 22
    again; the outer break was moved to the resume function's line 36 (the rule above, for a
    caller's line), so one cause was two panels, the top one at the call. The inner function
    was compiled on its own: 22 is inlined user code, not a caller."""
    s = Store(tmp_path)
    s.user.write_text(NESTED)
    s.compile("0/0", co_name="forward", lineno=35)
    s.graph_break("0/0", 22, gb_type="Attempted to call function marked as skipped",
                  code="GB0007", extra_frame=LIB)
    s.compile("1/0", co_name="forward", lineno=21)
    s.graph_break("1/0", 22, gb_type="Attempted to call function marked as skipped",
                  code="GB0007", extra_frame=LIB)
    s.compile("2/0", co_name="torch_dynamo_resume_in_forward_at_36", lineno=36)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 22 and d["count"] == 2, d
