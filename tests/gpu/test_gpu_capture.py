"""Capture on CUDA: Triton kernels, autotuning, CUDA graphs, and the seed models end to end.

Every script runs once under `compdiag run`, all of them concurrently (one store each), in a
module fixture; the tests read the stores through `compdiag show --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

SCRIPTS = Path(__file__).parent / "scripts"
CASES = {
    "cos_sin": ["cos_sin.py"],
    "autotune_mm": ["autotune_mm.py"],
    "cudagraph_ok": ["cudagraph_ok.py"],
    "cudagraph_skip_mutation": ["cudagraph_skip_mutation.py"],
    "cudagraph_skip_cpu": ["cudagraph_skip_cpu.py"],
    "resnet50": ["seed_timm.py", "resnet50"],
    "resnext101_32x8d": ["seed_timm.py", "resnext101_32x8d"],
    "bert": ["seed_bert.py"],
}


def _optional(module: str) -> bool:
    try:
        __import__(module)
        return True
    except Exception:  # noqa: BLE001
        return False


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    base = tmp_path_factory.mktemp("gpu")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(base / "inductor-cache"))
    procs = {}
    for name, argv in CASES.items():
        if argv[0] == "seed_timm.py" and not _optional("timm"):
            continue
        if argv[0] == "seed_bert.py" and not _optional("transformers"):
            continue
        store = base / f"{name}.db"
        log = open(base / f"{name}.log", "w")
        cmd = [sys.executable, "-m", "compdiag", "run", "--store", str(store),
               str(SCRIPTS / argv[0]), *argv[1:]]
        procs[name] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env),
                       store, base / f"{name}.log")
    out = {}
    for name, (proc, store, log) in procs.items():
        rc = proc.wait(timeout=540)
        shown = subprocess.run([sys.executable, "-m", "compdiag", "show", "--store", str(store),
                                "--json"], capture_output=True, text=True, check=True)
        out[name] = {"rc": rc, "doc": json.loads(shown.stdout), "log": log.read_text()}
    return out


def _run(runs: dict, name: str) -> dict:
    if name not in runs:
        pytest.skip(f"{name}: its library is not installed here")
    r = runs[name]
    assert r["rc"] == 0, r["log"][-3000:]
    return r["doc"]


def test_cos_sin_is_one_fused_triton_kernel(runs):
    doc = _run(runs, "cos_sin")
    triton = [k for k in doc["kernels"] if k["backend"] == "triton"]
    assert len(triton) == 1, [k["name"] for k in triton]
    k = triton[0]
    assert {"cos", "sin"} <= set(k["fused_ops"]), k
    assert "@triton.jit" in k["source"]
    assert "cos" in k["source"] and "sin" in k["source"]
    assert k["fx_nodes"], "Inductor's Source Nodes comment names the FX nodes"
    assert doc["run"]["device"].startswith("cuda")


def test_max_autotune_records_the_choices(runs):
    doc = _run(runs, "autotune_mm")
    mm = [a for a in doc["autotune"] if "mm" in a["op"]]
    assert mm, doc["autotune"]
    assert mm[0]["choice"], mm[0]


def test_reduce_overhead_applies_cudagraphs(runs):
    doc = _run(runs, "cudagraph_ok")
    applied = [c for c in doc["cudagraphs"] if c["applied"]]
    assert applied and applied[0]["compile_id"] == "0/0", doc["cudagraphs"]
    assert not any(not c["applied"] for c in doc["cudagraphs"]), doc["cudagraphs"]


def test_mutated_input_skips_cudagraphs_with_reason(runs):
    doc = _run(runs, "cudagraph_skip_mutation")
    skips = [c for c in doc["cudagraphs"] if not c["applied"]]
    assert skips, doc["cudagraphs"]
    assert any("mutat" in (c["reason"] or "") for c in skips), skips
    assert all(c["compile_id"] == "0/0" for c in skips), skips


def test_cpu_input_skips_cudagraphs_with_reason(runs):
    """Skipped with a CPU reason, or (graph partitioning, torch >= 2.9) partitioned around the
    CPU op: then the split names it, and it is not a skip."""
    doc = _run(runs, "cudagraph_skip_cpu")
    skips = [c for c in doc["cudagraphs"] if not c["applied"]]
    cov = doc["cudagraph_coverage"] or {}
    splits = [s for g in cov.get("graphs") or [] if g["status"] == "partitioned"
              for s in g["splits"]]
    assert skips or splits, (doc["cudagraphs"], cov)
    assert any("cpu" in (c["reason"] or "").lower() for c in skips) or any(
        "cpu" in f"{s['reason']} {s['fx']} {s['node']}".lower() for s in splits), (skips, splits)


@pytest.mark.parametrize("name", ["resnet50", "resnext101_32x8d", "bert"])
def test_seed_models_captured_end_to_end(runs, name):
    doc = _run(runs, name)
    assert doc["compiles"], "at least one compile id"
    assert all(c["status"] in ("ok", "graph_break", "empty") for c in doc["compiles"])
    assert not doc["failures"], doc["failures"]
    triton = [k for k in doc["kernels"] if k["backend"] == "triton"]
    # BERT's 12 layers reuse the same few fused kernels; the convnets define many.
    assert len(triton) >= (5 if name == "bert" else 10), len(triton)
    assert all(k["source"] for k in triton)
    assert doc["run"]["exit_code"] == 0 and doc["run"]["status"] == "done"
    assert any(c["stage_times"].get("inductor") for c in doc["compiles"])
