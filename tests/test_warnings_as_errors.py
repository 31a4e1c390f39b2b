"""A warning the program's own filter turned into an exception is said at the filter
(analyses/warnings_as_errors.py). probes37c strict_warnings_compile: `warnings.simplefilter(
"error")` at line 8, then `torch.compile(model)` raised torch's own DeprecationWarning
(`torch.jit.script_method` is deprecated, called by torch while importing Inductor); explain
said torch.compile refused its argument, with a fix to change the call as the message says."""

from __future__ import annotations

from test_explain import Store

JIT = "/site-packages/torch/jit/_script.py"
LINES = ["import warnings", "import torch", "# warnings.simplefilter('error') in a comment",
         "s = 'warnings.simplefilter(\"error\")'", "x = 1", "y = 2", "z = 3",
         "warnings.simplefilter(\"error\")  # strict", "model = object()",
         "compiled = torch.compile(model)"]


def _run(tmp_path, raised_in: str, exc_type: str = "DeprecationWarning",
         lines: list[str] = LINES) -> list[dict]:
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("\n".join(lines) + "\n")
    s.ing.program_exception(None, exc_type=exc_type, message=(
        "`torch.jit.script_method` is deprecated. Please switch to `torch.compile`"), frames=[
        {"filename": str(s.user), "lineno": 10, "name": "<module>", "line": LINES[9]},
        {"filename": raised_in, "lineno": 365, "name": "script_method", "line": None}],
        compiled=None, stage=None)
    return [d for d in s.explain() if d["severity"] == "problem"]


def test_torchs_warning_raised_as_an_error_is_at_the_programs_filter(tmp_path):
    (d,) = _run(tmp_path, JIT)
    assert d["user_frame"]["lineno"] == 8, d["user_frame"]  # not the comment, not the string
    assert "DeprecationWarning was raised as an error at line 10" in d["reason"], d["reason"]
    assert '`warnings.simplefilter("error")`' in d["reason"]
    assert 'category=DeprecationWarning, module=r"torch\\."' in d["fix"], d["fix"]


def test_the_programs_own_warning_and_other_errors_are_not(tmp_path):
    (d,) = _run(tmp_path, str(tmp_path / "user_script.py"))
    assert "raised as an error" not in d["reason"]
    (tmp_path / "b").mkdir()
    (d,) = _run(tmp_path / "b", JIT, exc_type="RuntimeError")
    assert "raised as an error" not in d["reason"]


def test_a_filter_for_another_category_is_not_the_cause(tmp_path):
    """(review) `filterwarnings("error", category=UserWarning)` makes no DeprecationWarning
    an error: the first filter of any category was blamed."""
    lines = [*LINES[:7], 'warnings.filterwarnings("error", category=UserWarning)', *LINES[8:]]
    (d,) = _run(tmp_path, JIT, lines=lines)
    assert "raised as an error" not in d["reason"], d["reason"]
    (tmp_path / "b").mkdir()
    lines[7] = 'warnings.simplefilter("error", DeprecationWarning)'
    (d,) = _run(tmp_path / "b", JIT, lines=lines)
    assert "raised as an error" in d["reason"] and d["user_frame"]["lineno"] == 8, d
