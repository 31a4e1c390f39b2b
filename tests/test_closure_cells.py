"""A recompile on a closure cell names the captured variable (issue 29, set4's
closure_cell_recompile after pytorch#172382): torch says `cl.__closure__[1].cell_contents`,
the user wrote `n2`."""

from __future__ import annotations

from pathlib import Path

from compdiag.analyses.closure_cells import cell_name, closure_index
from test_explain import Store

SRC = """import torch


def make_cl(n1, n2):
    def inner(x):
        return x + n1 + n2

    return inner


@torch.compile(backend="eager")
def fn(cl, x):
    return cl(x)


fn(make_cl(0, 1), torch.ones(3))
fn(make_cl(0, 2), torch.ones(3))
"""


def test_a_closure_cell_recompile_names_the_captured_variable(tmp_path: Path) -> None:
    """Before: "Python value cl.__closure__[1].cell_contents changed", fix "Pass
    cl.__closure__[1].cell_contents as a tensor". The guard's innermost user frame is in
    inner(), whose sorted free variables (co_freevars) are (n1, n2): cell 1 is n2."""
    s = Store(tmp_path)
    s.user.write_text(SRC)
    s.compile("0/0", co_name="fn", lineno=11)
    s.compile("0/1", co_name="fn", lineno=11, recompile_reason=(
        f"0/0: cl.__closure__[1].cell_contents == 1                     # return x + n1 + n2"
        f"  # {s.user}:6 in inner\nUser stack trace:\n  File \"{s.user}\", line 13, in fn\n"
        f"    return cl(x)\n  File \"{s.user}\", line 6, in inner\n    return x + n1 + n2"))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "captured variable n2 of inner() changed" in d["reason"]
    assert "Pass n2 as an argument" in d["fix"] and "tensor" not in d["fix"]


def test_cell_name_follows_co_freevars_order(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def outer(zeta, alpha):\n    beta = 1\n"
                   "    f = lambda x: x + zeta + alpha + beta\n    return f\n")
    ns: dict = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    made = ns["outer"](1, 2)
    assert [cell_name(str(src), 3, i) for i in range(3)] == list(made.__code__.co_freevars)
    assert cell_name(str(src), 3, 5) is None and cell_name(str(src), 99, 0) is None
    assert closure_index("L['cl'].__closure__[2].cell_contents") == ("L['cl']", 2)
    assert closure_index("x.size()[0]") is None
