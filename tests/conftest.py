"""Session fixtures for the CPU suite: every scenario script under tests/scripts/ runs once
per session into ONE session store, and the tests read that store (see cdtest.py)."""

from __future__ import annotations

import pytest

from cdtest import SCRIPTS, Launch, Proc, Session


@pytest.fixture(scope="session")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    root = tmp_path_factory.mktemp("compdiag")
    return Session(root=root, store=root / "session.db", cache=root / "inductor-cache")


@pytest.fixture(scope="session")
def launched(session: Session) -> dict[str, Launch]:
    """Every compile scenario, started together the first time any of them is needed."""
    fault = SCRIPTS / "fault_inject"
    return {
        "scenario": session.start("scenario", SCRIPTS / "scenario.py", env=session.env(
            TORCH_TRACE=str(session.root / "scenario-trace"))),
        "fail_kernel": session.start("fail_kernel", SCRIPTS / "fail_kernel.py"),
        "killed": session.start("killed", SCRIPTS / "kill_self.py"),
        "hook_fault": session.start("hook_fault", SCRIPTS / "gb_eager.py", env=session.env(
            PYTHONPATH=str(fault), COMPDIAG_TEST_FAULT="hook")),
    }


def _finished(session: Session, launch: Launch) -> Proc:
    p = launch.wait()
    assert p.run_id is not None, p.stderr[-4000:]
    p.extra["show"] = session.show(p.run_id)
    return p


@pytest.fixture(scope="session")
def scenario(session: Session, launched: dict[str, Launch]) -> Proc:
    """tests/scripts/scenario.py under `compdiag run`, with TORCH_TRACE written beside it.

    One graph break (two graphs with C++ kernels) and one recompile."""
    p = _finished(session, launched["scenario"])
    assert p.returncode == 0, p.stderr[-4000:]
    logs = sorted((session.root / "scenario-trace").iterdir())
    assert len(logs) == 1, logs
    p.extra["trace_log"] = logs[0]
    return p


@pytest.fixture(scope="session")
def fail_kernel(session: Session, launched: dict[str, Launch]) -> Proc:
    """tests/scripts/fail_kernel.py: a kernel that does not compile, then one that throws."""
    return _finished(session, launched["fail_kernel"])


@pytest.fixture(scope="session")
def killed(session: Session, launched: dict[str, Launch]) -> Proc:
    """tests/scripts/kill_self.py: compiles, then SIGKILLs itself."""
    return _finished(session, launched["killed"])


@pytest.fixture(scope="session")
def hook_fault(session: Session, launched: dict[str, Launch]) -> Proc:
    """tests/scripts/gb_eager.py with a fault injected into compdiag's graph-break parser."""
    return _finished(session, launched["hook_fault"])


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory):
    """The TUI's hand-built demo store (no torch): two runs with every kind of fact, raw perf
    samples and a filed perf report comparing two modes. Copy it before writing to it."""
    from compdiag_tui.demo_store import USER_SOURCE, build_demo_store

    root = tmp_path_factory.mktemp("demo")
    (root / "model.py").write_text(USER_SOURCE)
    return build_demo_store(root / "demo.db", compiles=14, runs=2, cwd=str(root), perf=True,
                            perf_report=True)
