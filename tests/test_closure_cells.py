"""A recompile on a closure cell names the captured variable (issue 29, the class of set4's
closure_cell_recompile, on the corpus' own source corpus/rc_closure_cell.py): torch says
`score_mod.__closure__[1].cell_contents`, the user wrote `window`."""

from __future__ import annotations

from pathlib import Path

from compdiag.analyses.closure_cells import cell_name, closure_index
from test_explain import Store

# corpus/rc_closure_cell.py: score() (line 10) closes over (scale, window); attend() (def at
# line 17, decorator 16) calls it at line 19; the guard's line is score()'s line 12
SRC = (Path(__file__).resolve().parent.parent / "corpus" / "rc_closure_cell.py").read_text()


def closure_reason(user: Path) -> str:
    """torch's recompile reason for corpus/rc_closure_cell.py's second call, at `user`."""
    return ("0/0: score_mod.__closure__[1].cell_contents == 1  # return torch.where(d <= "
            f"window, d * scale, torch.zeros_like(d))  # {user}:12 in score\nUser stack "
            f'trace:\n  File "{user}", line 19, in attend\n    return score_mod(q, k).sum(-1)'
            f'\n  File "{user}", line 12, in score\n'
            "    return torch.where(d <= window, d * scale, torch.zeros_like(d))")


def test_a_closure_cell_recompile_names_the_captured_variable(tmp_path: Path) -> None:
    """Before: "Python value score_mod.__closure__[1].cell_contents changed", fix "Pass
    score_mod.__closure__[1].cell_contents as a tensor". The guard's innermost user frame is
    in score(), whose sorted free variables (co_freevars) are (scale, window): cell 1 is
    window."""
    s = Store(tmp_path)
    s.user.write_text(SRC)
    s.compile("0/0", co_name="attend", lineno=16)
    s.compile("0/1", co_name="attend", lineno=16, recompile_reason=closure_reason(s.user))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "captured variable window of score() changed" in d["reason"]
    assert "Pass window as an argument" in d["fix"] and "tensor" not in d["fix"]


def test_cell_name_follows_co_freevars_order(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def outer(zeta, alpha):\n    beta = 1\n"
                   "    f = lambda x: x + zeta + alpha + beta\n    return f\n")
    ns: dict = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    made = ns["outer"](1, 2)
    text = src.read_text()
    assert [cell_name(text, 3, i) for i in range(3)] == list(made.__code__.co_freevars)
    assert cell_name(text, 3, 5) is None and cell_name(text, 99, 0) is None
    assert cell_name(None, 3, 0) is None  # a file the run kept no text of
    assert closure_index("L['cl'].__closure__[2].cell_contents") == ("L['cl']", 2)
    assert closure_index("x.size()[0]") is None
