"""analyses/compiling_branches.py: a function that hit the recompile limit runs in eager, and
an `is_compiling()` branch in the code it traced takes its other side there (probes45f
decode_pos_limit_eager_clamp: explain named the limit, not the change of results). On a stub
of the run's context (the stored source, the compile's code row): no compile."""

from __future__ import annotations

from compdiag.analyses.compiling_branches import compiling_branch, eager_fallback_words

SOURCE = '''import torch


def clamp_in_eager(logits):
    if not torch.compiler.is_compiling():
        logits = logits.clamp(-4.0, 4.0)
    return logits


@torch.compile
def step(x):
    return clamp_in_eager(x * 8.0)


@torch.compile
def plain(x):
    y = x if torch.jit.is_scripting() else -x
    return y
'''


class Ctx:
    compiles = ("0/0", "1/0")

    def code_row(self, cid):
        return {"0/0": {"filename": "/p/m.py", "co_name": "step", "lineno": 10},
                "1/0": {"filename": "/p/m.py", "co_name": "plain", "lineno": 15}}[cid]

    def source_text(self, path):
        return SOURCE if path == "/p/m.py" else None

    def source_lines(self, path):
        return SOURCE.splitlines() if path == "/p/m.py" else None

    def resolve(self, path):
        return path


def test_the_branch_in_a_called_helper_is_found_with_its_line():
    assert compiling_branch(Ctx(), "0/0") == {
        "filename": "/p/m.py", "lineno": 5, "line": "if not torch.compiler.is_compiling():"}
    assert "(line 5) takes its other side" in eager_fallback_words(Ctx(), "0/0")


def test_another_predicate_is_no_such_branch():
    assert compiling_branch(Ctx(), "1/0") is None
    assert eager_fallback_words(Ctx(), "1/0") == ""
