"""Issue 17 on CUDA: CUDA-graph coverage and re-recordings in `show --json`, the
`check --require-cudagraphs` gate, TF32 as a limiter with its effect measured by `perf --try`,
and no library call (cuBLAS, cuDNN, SDPA) named a fallback on BERT or resnet50. The explain
side of the same cases is the GPU corpus (corpus/gpu/, tests/gpu/test_corpus_gpu.py).

The runs start together in a module fixture (one store each, one shared Inductor cache per
script); skipped without CUDA."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]

HERE = Path(__file__).parent
SCRIPTS = HERE / "scripts"
CORPUS = HERE.parent.parent / "corpus" / "gpu"


def _optional(module: str) -> bool:
    try:
        __import__(module)
        return True
    except Exception:  # noqa: BLE001
        return False


# name -> the compdiag command line after `python -m compdiag` (STORE and JUNIT filled in)
CASES = {
    "three_sizes": ["run", "--store", "{store}", str(CORPUS / "cg_rerecord_sizes.py")],
    "partitioned": ["run", "--store", "{store}", str(CORPUS / "cg_partitioned.py")],
    "gate_skip": ["check", "--store", "{store}", "--require-cudagraphs", "--junit", "{junit}",
                  "--json", str(SCRIPTS / "cudagraph_skip_mutation.py")],
    "gate_clean": ["check", "--store", "{store}", "--require-cudagraphs", "--junit", "{junit}",
                   "--json", str(SCRIPTS / "cudagraph_ok.py")],
    "bert_try": ["perf", "--store", "{store}", "--json", "--budget", "1", "--try-settings",
                 "tf32", str(SCRIPTS / "bert_batch1.py")],
    "resnet50": ["perf", "--store", "{store}", "--json", "--budget", "1",
                 str(SCRIPTS / "seed_timm.py"), "resnet50"],
}
NEEDS = {"bert_try": "transformers", "resnet50": "timm"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    base = tmp_path_factory.mktemp("issue17")
    procs = {}
    for name, argv in CASES.items():
        if name in NEEDS and not _optional(NEEDS[name]):
            continue
        store, junit = base / f"{name}.db", base / f"{name}.xml"
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(base / f"cache-{name}"))
        cmd = [sys.executable, "-m", "compdiag",
               *(a.format(store=store, junit=junit) for a in argv)]
        out, err = open(base / f"{name}.out", "w"), open(base / f"{name}.err", "w")
        procs[name] = (subprocess.Popen(cmd, stdout=out, stderr=err, env=env), store, junit,
                       base / f"{name}.out", base / f"{name}.err")
    done = {}
    for name, (proc, store, junit, out, err) in procs.items():
        rc = proc.wait(timeout=560)
        shown = subprocess.run([sys.executable, "-m", "compdiag", "show", "--store", str(store),
                                "--json"], capture_output=True, text=True)
        done[name] = {"rc": rc, "out": out.read_text(), "err": err.read_text()[-4000:],
                      "show": json.loads(shown.stdout) if shown.returncode == 0 else None,
                      "junit": junit.read_text() if junit.exists() else None}
    return done


def _get(runs: dict, name: str) -> dict:
    if name not in runs:
        pytest.skip(f"{name}: its library is not installed here")
    return runs[name]


def test_three_input_sizes_report_three_recordings(runs):
    r = _get(runs, "three_sizes")
    assert r["rc"] == 0, r["err"]
    cov = r["show"]["cudagraph_coverage"]
    assert cov["recordings"] == 3, cov
    assert cov["skipped"] == 0, cov
    sizes = [s for g in cov["graphs"] for s in g["recorded_sizes"]]
    assert sorted(s[0][0] for s in sizes) == [256, 512, 1024], sizes


def test_partitioned_graph_reports_partitions_and_no_skip(runs):
    r = _get(runs, "partitioned")
    assert r["rc"] == 0, r["err"]
    cov = r["show"]["cudagraph_coverage"]
    assert cov["skipped"] == 0 and cov["partitioned"] == 1, cov
    g = next(g for g in cov["graphs"] if g["status"] == "partitioned")
    assert g["partitions"]["cudagraphable"] >= 1, g
    assert (g["partitions"]["non_cudagraphable"] or 0) >= 1, g
    assert g["splits"], g
    assert not [c for c in r["show"]["cudagraphs"] if not c["applied"]], r["show"]["cudagraphs"]


def test_require_cudagraphs_fails_on_a_skip(runs):
    r = _get(runs, "gate_skip")
    assert r["rc"] == 1, r["err"]
    doc = json.loads(r["out"])
    assert any(c["status"] == "skipped" for c in doc["cudagraphs"]), doc
    assert r["junit"] and 'failures="0"' not in r["junit"], r["junit"]
    assert "mutat" in r["junit"], r["junit"]


def test_require_cudagraphs_passes_a_clean_script(runs):
    r = _get(runs, "gate_clean")
    assert r["rc"] == 0, r["err"]
    doc = json.loads(r["out"])
    assert doc["cudagraphs"] and all(c["ok"] for c in doc["cudagraphs"]), doc
    assert 'failures="0"' in r["junit"], r["junit"]


def _no_library_fallback(rep: dict) -> None:
    from compdiag.analyses.library_calls import is_library_call

    for lim in rep["limiters"]:
        if lim["kind"] == "fallback":
            assert not is_library_call(lim["reason"].split()[0]), lim
    for g in rep["graphs"]:
        assert not [f for f in g["fallbacks"] if is_library_call(f)], g["fallbacks"]


def test_bert_fp32_names_tf32_and_try_measures_it(runs):
    r = _get(runs, "bert_try")
    assert r["rc"] == 0, r["err"]
    doc = json.loads(r["out"])
    base = doc["runs"][0]
    kinds = [lim["kind"] for lim in base["limiters"]]
    assert "tf32_off" in kinds, kinds
    _no_library_fallback(base)
    tried = doc["tried"]["settings"]
    assert [s["setting"] for s in tried] == ["tf32"], doc["tried"]
    s = tried[0]
    assert s["exit_code"] == 0, s
    ch = s["compiled_change"]
    assert ch["ratio"] and ch["lo"] is not None and ch["hi"] is not None, s
    assert s["verdict"] in ("helps", "does not help", "slower"), s
    print(f"\nBERT fp32, TF32 tried: compiled time baseline/setting {ch['ratio']:.2f}x "
          f"[{ch['lo']:.2f}-{ch['hi']:.2f}] -> {s['verdict']}")


def test_no_library_call_is_a_fallback_limiter_on_resnet50(runs):
    r = _get(runs, "resnet50")
    assert r["rc"] == 0, r["err"]
    rep = json.loads(r["out"])["runs"][0]
    assert any(g["library_calls"] for g in rep["graphs"]), rep["graphs"]
    _no_library_fallback(rep)
