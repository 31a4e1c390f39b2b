"""CI's smoke of the capture benchmark (benchmarks/bench_capture.py, issue 34).

One round of plain python and `compdiag run` on the benchmark's model with the eager backend
(no Inductor compile): the benchmark must run end to end and print both of its figures side
by side, the CPU ratio of the process trees and capture's own time as the run counted it
in-process. No figure is checked: a benchmark, not a timed test (`python
benchmarks/bench_capture.py` measures; docs/capture.md has the figures)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cdtest import REPO


@pytest.mark.slow
def test_bench_capture_smoke(tmp_path):
    out = tmp_path / "bench.json"
    p = subprocess.run([sys.executable, str(REPO / "benchmarks/bench_capture.py"), "--smoke",
                        "--json", str(out)], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "compdiag run / python: CPU " in p.stdout and "wall " in p.stdout, p.stdout
    assert "capture's own time, in-process: " in p.stdout, p.stdout
    doc = json.loads(out.read_text())
    [fig] = doc["variants"]["compdiag"]["in_process"]
    assert set(fig) >= {"seconds", "share", "compdiag_cpu_s", "torch_trace_s", "run_cpu_s"}
    assert len(doc["variants"]["python"]["cpu_s"]) == 1
