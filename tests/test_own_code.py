"""Fail open: capture never adds graph breaks of its own to the user's program (principles_check
.own_code_problems, held over every store the benchmarks keep). On main before
capture.backward_graphs.not_traced, a backward run inside a compiled function had Dynamo
compile compdiag's wrapper on AOTAutograd's backward path as a frame of the program: two graph
breaks in compdiag/capture/backward_graphs.py (sys._getframe, then 'Failed to handle graph
break gracefully') that plain python never makes, reported at the user's backward() line."""

from __future__ import annotations

import pytest

from cdtest import SCRIPTS, Session
from compdiag.store.reader import Reader
from principles_check import own_code_problems

pytestmark = pytest.mark.slow


def test_a_backward_inside_a_compiled_function_gets_no_break_of_compdiags(session: Session,
                                                                          tmp_path):
    store = tmp_path / "s.db"
    p = session.compdiag("run", "--store", store, SCRIPTS / "backward_in_compiled.py")
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-3000:]
    with Reader(store) as r:
        run_id = r.resolve_run(None)
        breaks = list(r.graph_breaks(run_id))
        assert own_code_problems(r, run_id, []) == [], breaks
    assert breaks, "the backward() break itself is the program's and stays"
