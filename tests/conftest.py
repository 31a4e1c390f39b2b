"""Session fixtures for the CPU suite: every scenario script under tests/scripts/ runs once
per session into ONE session store, and the tests read that store (see cdtest.py).

The suite runs on two pytest-xdist workers (pyproject's addopts: `-n 2 --dist loadgroup`):
compiles are subprocesses, and while one worker waits on a compile the other has work. Every
test gets an xdist group here (pytest_collection_modifyitems), so what one expensive fixture
serves runs on one worker and the fixture is built once: a test file is a group, the tests
that read the session's compile scenarios (`launched`) are one group, and the corpus splits in
two halves by case. Heaviest groups are queued first so both workers end together."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

import cdtest
from cdtest import (SCRIPTS, SHARED_CACHE_ENV, Launch, Proc, Session, shared_cache,
                    torch_test_env)
from corpus_check import corpus_half

try:  # property tests: a 2-core machine loaded by a .ci/run is slow to draw, not wrong
    from hypothesis import HealthCheck, settings as _hypothesis

    _hypothesis.register_profile("compdiag", suppress_health_check=[HealthCheck.too_slow],
                                 deadline=None)
    _hypothesis.load_profile("compdiag")
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass

# The fixtures that start the session's compile scenarios: their readers share one worker.
SCENARIO_FIXTURES = frozenset({"launched", "scenario", "fail_kernel", "killed", "hook_fault"})
# Heaviest groups first (by the slowest tests of the last idle run and the number of cold
# compiles each group's fixtures make; benchmarks/test_time.md); the rest keep file order.
HEAVY_FIRST = ("corpus-0", "corpus-1", "test_minify_e2e", "scenarios", "test_docs_examples",
               "test_perf_e2e", "test_accuracy", "test_bisect", "test_endings", "test_caches",
               "test_report", "test_compile_id", "test_grad_accuracy")


def _import_the_tui_first() -> None:
    """Every compdiag_tui module imported once, here, in the main thread. compdiag is a pytest
    plugin (pyproject's pytest11), so pytest rewrites the modules of its distribution with `ast`
    as they are imported, and CPython 3.11's ast is not safe across threads
    (python/cpython#106905): the TUI's `_preload` worker importing its screens while a test's
    thread imported too raised `SystemError: AST constructor recursion depth mismatch`
    (test_caches' timings-tab test, once in a few runs). Imported here, the worker's imports
    are lookups in sys.modules."""
    import importlib
    import pkgutil

    import compdiag_tui
    for module in pkgutil.walk_packages(compdiag_tui.__path__, "compdiag_tui."):
        importlib.import_module(module.name)


def pytest_configure(config: pytest.Config) -> None:
    """One Inductor cache dir for the session (cdtest.shared_cache). The controlling process
    makes it; xdist's workers inherit it through the environment, as every child does
    cdtest.TORCH_TEST_ENV. (Each process that runs tests starts its own fork server:
    pytest_collection_finish.)"""
    os.environ.update(torch_test_env())
    # the printed commands say `compdiag ...` where the console script is on PATH (as in an
    # activated venv, .ci/run's); a suite run as `.venv/bin/python -m pytest` puts it there
    # too, so what the tests compare does not depend on how pytest was started
    # (formats/command_line.invocation; tests/test_printed_commands.py checks the other form)
    if shutil.which("compdiag") is None:
        bin_dir = os.path.dirname(sys.executable)
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    _import_the_tui_first()
    if not (hasattr(config, "workerinput") and os.environ.get(SHARED_CACHE_ENV)):
        path = tempfile.mkdtemp(prefix="compdiag-tests-inductor-")
        os.environ[SHARED_CACHE_ENV] = path
        config.stash[_OWNED] = path


# The test files whose captures use the fork server (cdtest.fork_server_env): the server is
# started only in a process that collected one of them and runs tests.
FORK_SERVER_USERS = frozenset({"test_corpus.py", "test_accuracy.py", "test_fork_server.py",
                               "test_minify_e2e.py", "test_report.py", "test_caches.py",
                               "test_stored_sources.py"})


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    runs_tests = hasattr(config, "workerinput") or not getattr(config.option, "numprocesses",
                                                               None)
    if runs_tests and any(item.path.name in FORK_SERVER_USERS for item in session.items):
        _start_fork_server(config)


# COMPDIAG_TESTS_FORK_SERVER=0 runs every capture child as a fresh interpreter (the users'
# path, as before the server); COMPDIAG_TESTS_FORK_LOG=FILE appends the server's log (one line
# per fork, refusal and fallback, with each child's CPU) to FILE at the end.
FORK_SERVER_SWITCH = "COMPDIAG_TESTS_FORK_SERVER"
FORK_LOG = "COMPDIAG_TESTS_FORK_LOG"


def _start_fork_server(config: pytest.Config) -> None:
    """One fork server (capture/zygote.py) for the capture children of this process's tests
    (cdtest.fork_server_env). Started now, it imports torch while the tests are collected;
    until it is ready its clients fall back to a fresh interpreter. Its environment is the one
    corpus_check.run_case gives its children, less the store and cache (read lazily)."""
    if os.environ.get(FORK_SERVER_SWITCH) == "0":
        return
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPDIAG_", "TORCH_LOGS", "TORCH_TRACE"))}
    # base_env's seed: its children (which set it) match, run_case's (which do not) take it
    env.update(PYTHONUNBUFFERED="1", PYTHONHASHSEED="0")
    # where the server's vector-ISA probes are built (capture/zygote.py decide_vector_isa): the
    # session's cache, not the user's /tmp one (a child reads its own: LAZY)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(shared_cache())
    started = cdtest.start_fork_server(env)
    if started is None:
        return
    config.stash[_FORK] = started
    cdtest.FORK_SERVER = os.path.join(started[1], "sock")


def _stop_fork_server(config: pytest.Config) -> None:
    proc, folder = config.stash.get(_FORK, (None, None))
    if proc is None:
        return
    del config.stash[_FORK]
    cdtest.FORK_SERVER = None
    cdtest.stop_fork_server(proc, folder, os.environ.get(FORK_LOG))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Here, not in pytest_unconfigure: xdist may end a worker before that one finishes."""
    _stop_fork_server(session.config)


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_fork_server(config)  # when sessionfinish did not run (an internal error)
    path = config.stash.get(_OWNED, None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


_OWNED = pytest.StashKey[str]()
_FORK = pytest.StashKey[tuple]()


def xdist_group(item: pytest.Item) -> str:
    """The work unit `item` belongs to under `--dist loadgroup` (see the module docstring)."""
    if SCENARIO_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "scenarios"
    callspec = getattr(item, "callspec", None)
    if item.path.name == "test_corpus.py" and callspec is not None and \
            "sidecar" in callspec.params:
        return f"corpus-{corpus_half(callspec.params['sidecar'])}"
    return item.path.stem


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):  # one process (`-n 0`): file order, no groups
        return
    groups = {}
    for item in items:
        groups[item] = xdist_group(item)
        item.add_marker(pytest.mark.xdist_group(groups[item]))
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda it: rank.get(groups[it], len(rank)))  # stable: file order otherwise


@pytest.fixture(scope="session")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    root = tmp_path_factory.mktemp("compdiag")
    return Session(root=root, store=root / "session.db", cache=shared_cache())


@pytest.fixture(scope="session")
def launched(session: Session) -> dict[str, Launch]:
    """Every compile scenario, started together the first time any of them is needed."""
    fault = SCRIPTS / "fault_inject"
    launches = {
        "scenario": session.start("scenario", SCRIPTS / "scenario.py", env=session.env(
            TORCH_TRACE=str(session.root / "scenario-trace"))),
        "killed": session.start("killed", SCRIPTS / "kill_self.py"),
        "hook_fault": session.start("hook_fault", SCRIPTS / "gb_eager.py", env=session.env(
            PYTHONPATH=str(fault), COMPDIAG_TEST_FAULT="hook")),
    }
    # An ordinary capture, forked by the session's server (started last: fork_server_env
    # waits for the server's import). The three above stay on the users' path: a SIGKILL,
    # and a TORCH_TRACE and a PYTHONPATH the server would refuse.
    launches["fail_kernel"] = session.start("fail_kernel", SCRIPTS / "fail_kernel.py",
                                            env=session.env(**cdtest.fork_server_env()))
    return launches


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


@pytest.fixture
def checks():
    """The graph checker and the function checker installed as capture installs them; the
    checks they report (tests/test_function_accuracy.py, tests/test_forked_effects.py)."""
    import torch

    from compdiag.capture.accuracy import AccuracyChecker
    from compdiag.capture.accuracy_compare import Tolerance
    from compdiag.capture.function_accuracy import FunctionChecker

    found: list = []
    graphs = AccuracyChecker(found.append, grads=False, localise=False)
    undo_graphs = graphs.install()
    undo = FunctionChecker(found.append, Tolerance(), graphs).install()
    torch._dynamo.reset()
    yield found
    undo()
    undo_graphs()
    torch._dynamo.reset()
