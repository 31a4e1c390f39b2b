"""`compdiag perf --try` on the CPU: one tiny script whose top limiter names a setting that
applies there (dynamic shapes), the baseline plus that one setting, each a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cdtest import base_env

SCRIPT = Path(__file__).parent / "perf_scripts" / "sizes_vary.py"


def test_try_runs_the_dynamic_setting_beside_the_baseline(tmp_path):
    env = base_env(tmp_path / "cache")
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    p = subprocess.run([sys.executable, "-m", "compdiag", "perf", "--store",
                        str(tmp_path / "s.db"), "--json", "--budget", "0.2", "--reps", "5",
                        "--try", str(SCRIPT)], env=env, capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    tried = doc["tried"]
    names = [s["setting"] for s in tried["settings"]]
    assert names == ["dynamic"], (names, tried, [lim["kind"] for lim in doc["runs"][0]["limiters"]])
    s = tried["settings"][0]
    assert s["exit_code"] == 0 and s["run"] != tried["baseline"]["run"]
    assert s["verdict"] in ("helps", "does not help", "slower")
    ch = s["compiled_change"]
    assert ch["ratio"] > 0 and ch["lo"] <= ch["ratio"] <= ch["hi"]
    assert s["baseline_speedup"]["ratio"] and s["speedup"]["ratio"]
    # Settings that only mean something on a GPU are named, not run.
    assert all(n["setting"] not in names for n in tried["not_tried"])
    # The setting reached the child: its run recompiled less (dynamic from the first compile).
    show = subprocess.run([sys.executable, "-m", "compdiag", "show", "--store",
                           str(tmp_path / "s.db"), "--json", str(s["run"])], env=env,
                          capture_output=True, text=True, timeout=120)
    run = json.loads(show.stdout)["run"]
    assert any("--try applied: dynamic" in w for w in run["warnings"]), run["warnings"]
    base = subprocess.run([sys.executable, "-m", "compdiag", "show", "--store",
                           str(tmp_path / "s.db"), "--json", str(tried["baseline"]["run"])],
                          env=env, capture_output=True, text=True, timeout=120)
    assert len(json.loads(show.stdout)["recompiles"]) < len(json.loads(base.stdout)["recompiles"])
