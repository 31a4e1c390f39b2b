"""Session fixtures for the CPU suite: every scenario script under tests/scripts/ runs once
per session into ONE session store, and the tests read that store (see cdtest.py)."""

from __future__ import annotations

import pytest

from cdtest import SCRIPTS, Proc, Session


@pytest.fixture(scope="session")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    root = tmp_path_factory.mktemp("compdiag")
    return Session(root=root, store=root / "session.db", cache=root / "inductor-cache")


@pytest.fixture(scope="session")
def scenario(session: Session) -> Proc:
    """tests/scripts/scenario.py under `compdiag run`, with TORCH_TRACE written beside it.

    One graph break (two graphs with C++ kernels) and one recompile."""
    trace_dir = session.root / "scenario-trace"
    p = session.run(SCRIPTS / "scenario.py",
                    env=session.env(TORCH_TRACE=str(trace_dir)))
    assert p.returncode == 0, p.stderr[-4000:]
    assert p.run_id is not None, p.stderr[-4000:]
    logs = sorted(trace_dir.iterdir())
    assert len(logs) == 1, logs
    p.extra["trace_log"] = logs[0]
    p.extra["show"] = session.show(p.run_id)
    return p


@pytest.fixture(scope="session")
def fail_kernel(session: Session) -> Proc:
    """tests/scripts/fail_kernel.py: a kernel that does not compile, then one that throws."""
    p = session.run(SCRIPTS / "fail_kernel.py")
    assert p.run_id is not None, p.stderr[-4000:]
    p.extra["show"] = session.show(p.run_id)
    return p


@pytest.fixture(scope="session")
def killed(session: Session) -> Proc:
    """tests/scripts/kill_self.py: compiles, then SIGKILLs itself."""
    p = session.run(SCRIPTS / "kill_self.py")
    assert p.run_id is not None, p.stderr[-4000:]
    p.extra["show"] = session.show(p.run_id)
    return p
