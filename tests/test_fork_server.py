"""The test suite's fork server for capture children (compdiag/capture/zygote.py, opt-in by
COMPDIAG_ZYGOTE): a forked child must leave the same store facts and exit status as a fresh
interpreter, and every way the server cannot serve must fall back to a fresh one."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

import cdtest
from cdtest import Session, base_env, fork_server_env, run_cmd, compdiag_args, shared_cache
from compdiag.capture.zygote import mismatch

# One graph for all three (the same FX graph, hence Inductor cache entries): warmed once by
# `warm_cache`, every run below is a cache hit whatever its order, and none compiles cold.
GRAPH = "import torch\ntorch.compile(lambda t: torch.sin(t) + 1)(torch.ones(3))\n"
SCRIPTS = {
    "exits": GRAPH + "import sys\nprint('out')\nsys.exit(3)\n",
    "raises": GRAPH + "raise ValueError('boom')\n",
    # the sleep: capture commits every 0.5 s, so what the store holds before the SIGKILL
    # does not depend on how fast the child got there
    "killed": GRAPH + "import os, signal, time\ntime.sleep(1.5)\n"
                      "os.kill(os.getpid(), signal.SIGKILL)\n",
}


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An Inductor cache holding GRAPH's compile (plain python, once)."""
    root = tmp_path_factory.mktemp("fork-warm")
    (root / "warm.py").write_text(GRAPH)
    cache = root / "cache"
    p = run_cmd([sys.executable, str(root / "warm.py")], env=base_env(cache), cwd=root)
    assert p.returncode == 0, p.stderr[-2000:]
    return cache


def _server_ready() -> Path:
    """The log of this process's fork server once it has imported torch."""
    if not cdtest.FORK_SERVER:
        pytest.skip("no fork server in this session (COMPDIAG_TESTS_FORK_SERVER=0)")
    log = Path(cdtest.FORK_SERVER + ".log")
    assert fork_server_env(wait_s=600), f"the fork server is not ready: {log.read_text()}"
    return log


def _facts(session: Session, store: Path) -> dict:
    """What a run stored that does not depend on timing or on the cache being warm."""
    doc = session.show(None, store=store)
    run = doc["run"]
    explain = run_cmd(compdiag_args("explain", "--store", store, "--json"), env=session.env())
    diagnoses = json.loads(explain.stdout)["diagnoses"] if explain.returncode == 0 else None
    return {
        "exit_code": run["exit_code"], "status": run["status"], "argv": run["argv"],
        "warnings": run["warnings"],
        "compiles": [(c["compile_id"], c["co_name"], c["lineno"], c["status"])
                     for c in doc["compiles"]],
        "kernels": sorted(k["name"] for k in doc["kernels"]),
        "failures": len(doc["failures"]), "graph_breaks": len(doc["graph_breaks"]),
        "diagnoses": [(d["kind"], (d.get("user_frame") or {}).get("lineno"))
                      for d in diagnoses or []],
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_fork_gives_the_same_facts_and_status_as_a_fresh_interpreter(
        name: str, session: Session, tmp_path: Path, warm_cache: Path) -> None:
    """An exit, a raise and a SIGKILL under `compdiag run`, once as users run it and once
    forked by the server: the same exit status, program output and stored facts, and the
    server's log shows the second really was forked. Both in a cache that holds the graph
    already (cold then warm would differ by an information diagnosis, the cache hit). Fails on
    main (no server: no fork)."""
    log = _server_ready()
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPTS[name])
    results = {}
    for how, extra in (("exec", {}), ("fork", fork_server_env())):
        store = tmp_path / f"{how}.db"
        before = log.read_text().count("forked pid=")
        p = run_cmd(compdiag_args("run", "--store", store, script),
                    env=session.env(**extra, TORCHINDUCTOR_CACHE_DIR=str(warm_cache)),
                    cwd=tmp_path)
        forks = log.read_text().count("forked pid=") - before
        results[how] = (p, _facts(session, store), forks)
    (exec_p, exec_facts, exec_forks), (fork_p, fork_facts, fork_forks) = \
        results["exec"], results["fork"]
    assert (exec_forks, fork_forks) == (0, 1), log.read_text()[-2000:]
    assert fork_p.returncode == exec_p.returncode, (fork_p.stderr, exec_p.stderr)
    assert fork_p.stdout == exec_p.stdout
    program_err = [ln for ln in fork_p.stderr.splitlines() if not ln.startswith("compdiag:")]
    assert program_err == [ln for ln in exec_p.stderr.splitlines()
                           if not ln.startswith("compdiag:")]
    assert fork_facts == exec_facts
    expected = {"exits": 3, "raises": 1, "killed": 128 + signal.SIGKILL}[name]
    assert fork_p.returncode == expected, fork_p.stderr[-2000:]


@pytest.mark.slow
def test_forked_child_takes_the_requests_cache_dir_and_counts_the_import(
        session: Session, tmp_path: Path) -> None:
    """TORCHINDUCTOR_CACHE_DIR is the one variable torch reads that may differ from the
    server's (read when used): a forked child's compile lands in the request's fresh dir. And
    its run's CPU counts the interpreter start and torch's import the server did for it (a
    forked child's own clock starts at zero): above the capture's own share, as a fresh
    child's is. Fails on main (no server)."""
    log = _server_ready()
    script = tmp_path / "one.py"
    script.write_text(GRAPH)
    cache = tmp_path / "own-cache"
    store = tmp_path / "one.db"
    p = run_cmd(compdiag_args("run", "--store", store, script),
                env=session.env(**fork_server_env(), TORCHINDUCTOR_CACHE_DIR=str(cache)),
                cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "forked pid=" in log.read_text()
    assert any(cache.rglob("*.so")), "the kernel was not built in the request's cache dir"
    capture = session.show(None, store=store)["capture"]
    started = float(log.read_text().split("start_cpu_s=")[1].split()[0])
    assert capture["run_cpu_s"] > started > 0, capture


def test_a_dead_or_absent_server_falls_back_to_a_fresh_interpreter(tmp_path: Path) -> None:
    """COMPDIAG_ZYGOTE naming no server: the run goes the normal way, same exit status, and
    the fallback is logged beside the socket's path. Fails on main (no fallback log)."""
    script = tmp_path / "plain.py"
    script.write_text("import sys\nprint('hi')\nsys.exit(4)\n")
    sock = tmp_path / "gone.sock"
    env = dict(base_env(shared_cache()), COMPDIAG_ZYGOTE=str(sock))
    p = run_cmd(compdiag_args("run", "--store", tmp_path / "s.db", script), env=env,
                cwd=tmp_path)
    assert p.returncode == 4, p.stderr
    assert p.stdout == "hi\n"
    assert "fallback" in (tmp_path / "gone.sock.log").read_text()


def test_an_environment_torch_reads_at_import_is_refused() -> None:
    """The fingerprint: what torch or Python read at start must match the server's, except
    what is read when used (the cache dir, PYTHONUNBUFFERED); an unset PYTHONHASHSEED takes the
    server's. Fails on main (no zygote module)."""
    own = {"TORCHINDUCTOR_VEC_ISA_OK": "1", "PYTHONHASHSEED": "0", "PATH": "/bin",
           "TORCHINDUCTOR_CACHE_DIR": "/a"}
    assert mismatch(dict(own, TORCHINDUCTOR_CACHE_DIR="/b", PATH="/usr/bin",
                         PYTHONUNBUFFERED="1", COMPDIAG_RUN_ID="3"), own) is None
    assert mismatch({k: v for k, v in own.items() if k != "PYTHONHASHSEED"}, own) is None
    for key, value in (("TORCH_LOGS", "+dynamo"), ("OMP_NUM_THREADS", "1"),
                       ("TORCHINDUCTOR_COMPILE_THREADS", "4"), ("PYTHONPATH", "/x"),
                       ("PYTHONHASHSEED", "1"), ("TMPDIR", "/scratch")):
        assert key in (mismatch(dict(own, **{key: value}), own) or ""), key
    assert "TORCHINDUCTOR_VEC_ISA_OK" in mismatch({"PATH": "/bin"}, own)


def test_the_suite_sends_only_ordinary_captures_to_the_server() -> None:
    """The users' path stays tested: the corpus keeps its ending and rank cases on a fresh
    interpreter, and fork_server_env is empty without a server."""
    from test_corpus import EXEC_PATH, SIDECARS

    names = [s.name[:-len(".expected.json")] for s in SIDECARS]
    fresh = [n for n in names if n.startswith(EXEC_PATH)]
    assert len(fresh) >= 3 and len(fresh) < len(names) // 4, fresh
    saved, cdtest.FORK_SERVER = cdtest.FORK_SERVER, None
    try:
        assert fork_server_env() == {}
    finally:
        cdtest.FORK_SERVER = saved
    assert os.environ.get("COMPDIAG_ZYGOTE") is None  # never the whole session's environment
