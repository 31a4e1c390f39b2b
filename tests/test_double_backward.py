"""autograd's connectivity error outside compiled code, on a gradient the compiled backward made
with `create_graph=True`, is a failure of compiled code (analyses/double_backward.py).
probes32g burgers_pinn_compiled_mlp: `u_x = autograd.grad(u.sum(), x, create_graph=True)` on
a `torch.compile(model)`'s output, then `autograd.grad(u_x.sum(), x)` raised "The
differentiated Tensor at index 0 appears to not have been used in the graph"; before this
test that was "the program's own error, not torch.compile's" (it trains in eager)."""

from __future__ import annotations

from test_explain import Store

UNUSED = ("The differentiated Tensor at index 0 appears to not have been used in the graph. "
          "Set allow_unused=True if this is the desired behavior.")
AUTOGRAD = "/usr/lib/python3.11/site-packages/torch/autograd/__init__.py"
PROGRAM = ["import torch", "model = torch.compile(Net())", "u = model(t, x)",
           "u_t, u_x = torch.autograd.grad(u.sum(), (t, x), create_graph=True)",
           "u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]", "print(u_xx)"]


def _run(tmp_path, lines: list[str], message: str = UNUSED) -> list[dict]:
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", lineno=2)
    s.ing.program_exception(None, exc_type="RuntimeError", message=message, frames=[
        {"filename": str(s.user), "lineno": 5, "name": "<module>", "line": lines[4]},
        {"filename": AUTOGRAD, "lineno": 503, "name": "grad", "line": None}],
        compiled=None, stage=None)
    return s.explain()


def test_differentiating_a_compiled_gradient_again_is_a_double_backward_failure(tmp_path):
    (d,) = [d for d in _run(tmp_path, PROGRAM) if d["severity"] == "problem"]
    assert d["kind"] == "failure" and d["user_frame"]["lineno"] == 5, d
    assert d["reason"].startswith("double backward through compiled code at line 5"), d["reason"]
    # the gradient made first (line 4), not the raising line's own create_graph
    assert "Line 4 builds a gradient" in d["explanation"] and "_orig_mod" in d["fix"], d


def test_without_create_graph_it_stays_the_programs_own_error(tmp_path):
    lines = [ln.replace(", create_graph=True", "") for ln in PROGRAM]
    (d,) = [d for d in _run(tmp_path, lines) if d["severity"] == "problem"]
    assert d["kind"] == "program" and "outside compiled code" in d["reason"], d
    # another error beside create_graph=True: the program's too
    (tmp_path / "b").mkdir()
    (d,) = [d for d in _run(tmp_path / "b", PROGRAM, "shape mismatch")
            if d["severity"] == "problem"]
    assert d["kind"] == "program", d
