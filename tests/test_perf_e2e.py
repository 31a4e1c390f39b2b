"""`compdiag perf` end to end on CPU: real compiles, real timings.

Three programs from tests/perf_scripts/ run side by side (each compile takes minutes on a busy
2-core machine): the small model under `--modes default,reduce-overhead` (speed-up measured, a
mode table and a recommendation), a hot function split by a planted graph break (named as the
limiter, at its line) and one with a planted ATen fallback (cumsum, named).

The machine's load makes absolute times meaningless, so the assertions are about what the
report says, never about a particular speed-up figure: every timed graph has enough samples
and a 95% interval around its ratio, and a verdict consistent with that interval.

The six capture children (two modes twice, two programs once) are forked by a fork server of
this module's own (cdtest.OwnForkServer; the session's would refuse OMP_NUM_THREADS=1):
torch imported once instead of six times (benchmarks/test_time.md, round 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cdtest import OwnForkServer, base_env

SCRIPTS = Path(__file__).parent / "perf_scripts"
TIMEOUT = 900

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def perf_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("perf")
    env = base_env(root / "unused-cache")  # compdiag perf gives every run its own cache
    # One OpenMP thread: on an oversubscribed machine two spinning threads per process turn
    # every parallel region into a wait for a time slice; one thread keeps samples comparable.
    env.update(OMP_NUM_THREADS="1", TORCHINDUCTOR_COMPILE_THREADS="1", COLUMNS="120")
    jobs = {
        "model": ["--modes", "default,reduce-overhead", "--repeat", "2",
                  str(SCRIPTS / "model.py"), "8"],
        "graph_break": [str(SCRIPTS / "graph_break.py")],
        "fallback": [str(SCRIPTS / "fallback.py")],
    }
    with OwnForkServer(env) as forked:
        procs = {}
        for name, args in jobs.items():
            cmd = [sys.executable, "-m", "compdiag", "perf", "--store",
                   str(root / f"{name}.db"), "--json", "--budget", "1.0", *args]
            procs[name] = (cmd, subprocess.Popen(cmd, env={**env, **forked}, cwd=root,
                                                 stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True))
        out = {}
        for name, (cmd, p) in procs.items():
            stdout, stderr = p.communicate(timeout=TIMEOUT)
            assert p.returncode == 0, stderr[-4000:]
            doc = json.loads(stdout)
            doc["_store"] = root / f"{name}.db"
            doc["_stderr"] = stderr
            out[name] = doc
    return out


def _check_timings(rep: dict) -> None:
    assert rep["graphs"], rep["notes"]
    for g in rep["graphs"]:
        assert g["error"] is None
        assert g["eager"]["n"] >= 5 and g["compiled"]["n"] >= 5  # never one timing
        sp = g["speedup"]
        assert sp["lo"] <= sp["ratio"] <= sp["hi"]
        expected = ("faster" if sp["lo"] > 1 else "slower" if sp["hi"] < 1 else "within noise")
        assert sp["verdict"] == expected
        assert g["compile_s"] and g["compile_s"] > 0  # from the store's stage_times
        if sp["verdict"] == "faster":
            saved = g["eager"]["median"] - g["compiled"]["median"]
            assert g["payback_calls"] == pytest.approx(g["compile_s"] / saved, abs=1)


def test_model_speedup_is_measured_and_modes_compared(perf_runs):
    doc = perf_runs["model"]
    assert [r["mode"] for r in doc["runs"]] == ["default", "reduce-overhead"]
    default = doc["runs"][0]
    _check_timings(default)
    (g,) = default["graphs"]
    assert g["function"] == "forward" and g["calls"] == 8
    assert g["kernels"].get("cpp", 0) >= 1
    assert g["library_calls"]  # the linear layer's addmm: a library call, not a limiter
    assert not any(lim["kind"] == "fallback" for lim in default["limiters"])
    assert default["totals"]["speedup"]["ratio"] > 0
    assert default["peak_rss_bytes"] > 50 * 2**20
    # The compiled nn.Module's whole calls are timed too (before its 2nd call), and the mode
    # table is built on them; the program's 8 calls are counted without the timing loops'.
    (m,) = default["modules"]
    assert m["target"] == "Model" and m["calls"] == 8 and m["at_call"] == 2
    assert m["eager"]["n"] >= 5 and m["compiled"]["n"] >= 5 and m["error"] is None
    assert default["outside_graphs"]["target"] == "Model"
    modes = doc["modes"]
    assert [r["mode"] for r in modes["rows"]] == ["default", "reduce-overhead"]
    for row in modes["rows"]:
        assert row["compile_s"] > 0 and row["steady_s"] > 0 and row["peak_rss_bytes"]
        assert row["basis"] == "whole calls" and row["graphs_speedup"] > 0
    rec = modes["recommendation"]
    assert rec["mode"] in ("default", "reduce-overhead") and rec["reasons"]
    # CPU: reduce-overhead's CUDA graphs cannot apply, and the store says so.
    ro = doc["runs"][1]
    assert ro["cudagraphs"]["applied"] == 0
    # The report is filed in the store under both runs (the TUI reads it there).
    from compdiag.store.reader import Reader

    with Reader(doc["_store"]) as r:
        for rep in doc["runs"]:
            assert r.perf_report(rep["run"])["modes"]["rows"][0]["mode"] == "default"


def test_repeat_times_each_mode_in_a_second_process(perf_runs):
    """--repeat 2: each mode's second process reuses the first one's cache and adds its own
    paired timing; the mode's range spans both processes' intervals."""
    doc = perf_runs["model"]
    for rep, row in zip(doc["runs"], doc["modes"]["rows"]):
        (again,) = rep["repeats"]
        assert again["run"] != rep["run"] and again["exit_code"] == 0
        assert again["basis"] == "whole calls" and again["speedup"] > 0
        first = rep["module_totals"]["speedup"]
        assert row["processes"] == [first["ratio"], again["speedup"]]
        assert row["speedup_lo"] == min(first["lo"], again["speedup_lo"])
        assert row["speedup_hi"] == max(first["hi"], again["speedup_hi"])
        assert row["compile_s"] == rep["totals"]["compile_s"]  # the cold process' compile
    # Re-reading any of the four runs shows the whole comparison, repeats included.
    last = doc["runs"][1]["repeats"][0]["run"]
    p = subprocess.run([sys.executable, "-m", "compdiag", "perf", "--store", str(doc["_store"]),
                        "--json", str(last)], capture_output=True, text=True, timeout=300,
                       env=base_env())
    assert p.returncode == 0, p.stderr
    again = json.loads(p.stdout)
    assert [r["processes"] for r in again["modes"]["rows"]] == \
        [r["processes"] for r in doc["modes"]["rows"]]


def test_planted_graph_break_is_the_limiter(perf_runs):
    (rep,) = perf_runs["graph_break"]["runs"]
    _check_timings(rep)
    assert len(rep["graphs"]) == 2  # the hot function in two halves
    top = rep["limiters"][0]
    assert top["kind"] == "graph_break"
    assert "graph_break()" in top["reason"]
    assert top["user_frame"]["filename"].endswith("graph_break.py")
    assert top["user_frame"]["lineno"] == 16
    assert set(top["compile_ids"]) == {g["compile_id"] for g in rep["graphs"]}
    assert "into 2 compiled graphs" in top["evidence"]
    assert top["basis"] == "measured" and "crossing the break" in top["evidence"]


def test_planted_fallback_is_named(perf_runs):
    (rep,) = perf_runs["fallback"]["runs"]
    _check_timings(rep)
    fallbacks = [lim for lim in rep["limiters"] if lim["kind"] == "fallback"]
    assert fallbacks and "cumsum" in fallbacks[0]["reason"]
    assert rep["limiters"][0] is not None and rep["limiters"][0]["kind"] == "fallback"
    assert fallbacks[0]["user_frame"]["lineno"] == 8


def test_rerendering_a_stored_run_needs_no_rerun(perf_runs):
    doc = perf_runs["graph_break"]
    run = doc["runs"][0]["run"]
    p = subprocess.run([sys.executable, "-m", "compdiag", "perf", "--store", str(doc["_store"]),
                        str(run)], capture_output=True, text=True, timeout=300,
                       env={**base_env(), "COLUMNS": "120"})
    assert p.returncode == 0, p.stderr
    assert "graph_break" in p.stdout and "what limits it" in p.stdout
    assert "compiled" in p.stdout and "█" in p.stdout
