"""Multi-rank capture end to end: two gloo ranks on the CPU under torchrun, each compiling one
tiny function (tests/scripts/ranks_train.py), both ways in (`compdiag run -m
torch.distributed.run ...` and `torchrun --no-python compdiag run ...`), into one store. The
session's Inductor cache is shared by every rank and test. About 30-40 s per job on 2 cores."""

from __future__ import annotations

import json
import sys

import pytest

from cdtest import SCRIPTS, Session, compdiag_args, run_cmd

pytestmark = pytest.mark.slow
SCRIPT = SCRIPTS / "ranks_train.py"
LAUNCH = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
TIMEOUT = 300
PRINT_LINE = next(i for i, line in enumerate(SCRIPT.read_text().splitlines(), 1)
                  if line.strip().startswith("print(\"rank 1 logs"))


def _follow(session: Session, store, mode: str, **env: str):
    """`compdiag run -m torch.distributed.run ...`: capture follows the launcher's workers."""
    return session.compdiag("run", "--store", store, *LAUNCH, SCRIPT,
                            env=session.env(RANKS_MODE=mode, OMP_NUM_THREADS="1", **env),
                            cwd=store.parent)


def _json(session: Session, *args):
    p = session.compdiag(*args)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_a_print_on_rank_1_only_is_a_divergence_naming_rank_1_and_its_line(session, tmp_path):
    store = tmp_path / "break.db"
    p = _follow(session, store, "break")
    assert p.returncode == 0, p.stderr[-4000:]
    runs = _json(session, "runs", "--store", store, "--json")["runs"]
    jobs = {r["job"] for r in runs}
    assert len(jobs) == 1
    ranks = sorted((r["rank"], r["exit_code"]) for r in runs if r["rank"] is not None)
    assert ranks == [(0, 0), (1, 0)]
    doc = _json(session, "explain", "--store", store, "--job", "--json")
    assert [r["rank"] for r in doc["job"]["ranks"]] == [0, 1]
    div = [d for d in doc["diagnoses"] if d["kind"] == "divergence"]
    breaks = [d for d in div if d["details"]["facet"] == "graph_break"]
    assert len(breaks) == 1, div
    d = breaks[0]
    assert d["details"]["ranks"] == [1] and d["ranks"] == [1]
    assert d["user_frame"]["filename"] == str(SCRIPT)
    assert d["user_frame"]["lineno"] == PRINT_LINE
    assert "rank 1" in d["reason"] and "rank 0: no graph break" in d["reason"]
    assert set(d["details"]["facts"]) == {"0", "1"}
    # the two ranks' runs compare with `compdiag diff`
    diff = _json(session, "diff", "--store", store, "--json", str(d["details"]["run_ids"]["0"]),
                 str(d["details"]["run_ids"]["1"]))
    assert diff["schema_version"] == 1


def test_ranks_compiling_the_same_graph_do_not_diverge(session, tmp_path):
    """`torchrun --no-python compdiag run train.py`: each rank's compdiag joins the job."""
    store = tmp_path / "same.db"
    cmd = [sys.executable, *LAUNCH, "--no-python",
           *compdiag_args("run", "--store", store, SCRIPT)]
    p = run_cmd(cmd, env=session.env(RANKS_MODE="same", OMP_NUM_THREADS="1"),
                cwd=tmp_path, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr[-4000:]
    doc = _json(session, "explain", "--store", store, "--job", "--json")
    ranks = doc["job"]["ranks"]
    assert [r["rank"] for r in ranks] == [0, 1]
    assert all(r["exit_code"] == 0 and r["counts"]["compiles"] == 1 for r in ranks), ranks
    assert [d for d in doc["diagnoses"] if d["kind"] == "divergence"] == []
    text = session.compdiag("runs", "--store", store, env=session.env(COLUMNS="200"))
    assert text.returncode == 0 and "ranks 0,1" in text.stdout, text.stdout


def test_a_sigkilled_rank_leaves_the_other_ranks_captures_whole(session, tmp_path):
    store = tmp_path / "kill.db"
    p = _follow(session, store, "kill", RANKS_PIDFILE=str(tmp_path / "rank0.pid"))
    assert p.returncode != 0  # torchrun reports its failed worker
    assert "rank 1: run" in p.stderr and "killed by SIGKILL (exit 137)" in p.stderr, \
        p.stderr[-3000:]
    doc = _json(session, "show", "--store", store, "--job", "--json")
    by_rank = {r["run"]["rank"]: r for r in doc["ranks"]}
    whole, killed = by_rank[0], by_rank[1]
    assert whole["run"]["status"] == "done" and whole["run"]["exit_code"] == 0
    assert len(whole["compiles"]) == 1 and whole["compiles"][0]["status"] == "ok"
    assert whole["kernels"], "rank 0's capture lost its kernels"
    assert killed["run"]["status"] == "killed" and killed["run"]["exit_code"] == 137
    assert any("SIGKILL" in w for w in killed["run"]["warnings"])
    assert killed["compiles"], "what rank 1 captured before the kill is kept"
