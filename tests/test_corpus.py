"""Every CPU corpus script, end to end: `compdiag run` it, `compdiag explain --json` it, and the
top diagnosis must match the script's sidecar (corpus/NAME.expected.json).

The scripts run a few at a time in a thread pool (each its own store, one shared Inductor
cache directory in a session temp dir), started once for the selected cases; each test waits
only for its own script. COMPDIAG_CORPUS_JOBS sets the parallelism (default 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SIDECARS = sorted(CORPUS.glob("*.expected.json"))
JOBS = int(os.environ.get("COMPDIAG_CORPUS_JOBS", "3"))
TIMEOUT = int(os.environ.get("COMPDIAG_CORPUS_TIMEOUT", "300"))


def load_sidecar(path: Path) -> dict[str, Any]:
    spec = json.loads(path.read_text())
    for key in ("script", "kind", "lineno"):
        assert key in spec, f"{path.name} lacks {key!r}"
    return spec


def run_case(name: str, workdir: Path, cache_dir: Path,
             run_args: list[str] | None = None) -> dict[str, Any]:
    """Run one corpus script under capture (with the sidecar's `run_args`, e.g.
    --check-accuracy), then explain it; both as the CLI would."""
    store = workdir / (name.replace("/", "_") + ".db")
    # One compile thread: no worker pool to spawn per script on a 2-core machine.
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache_dir), PYTHONUNBUFFERED="1",
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    run = subprocess.run([sys.executable, "-m", "compdiag", "run", "--store", str(store),
                          *(run_args or []), str(CORPUS / f"{name}.py")], cwd=workdir, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    exp = subprocess.run([sys.executable, "-m", "compdiag", "explain", "--store", str(store),
                          "--json"], cwd=workdir, env=env, capture_output=True, text=True,
                         timeout=120)
    doc = json.loads(exp.stdout) if exp.returncode == 0 and exp.stdout.strip() else None
    return {"run_rc": run.returncode, "run_stderr": run.stderr[-3000:], "explain_rc":
            exp.returncode, "explain_stderr": exp.stderr[-3000:], "doc": doc}


@pytest.fixture(scope="session")
def corpus_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """name -> Future of run_case, submitted for the selected cases only, longest first."""
    selected = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "sidecar" in callspec.params and \
                item.module.__name__.endswith("test_corpus"):
            selected.append(callspec.params["sidecar"].name[:-len(".expected.json")])
    workdir = tmp_path_factory.mktemp("corpus")
    cache = workdir / "inductor-cache"
    cache.mkdir()
    # Inductor cases are the slow ones: start them first so the pool drains evenly.
    selected.sort(key=lambda n: (not n.startswith(("acc_backend", "fail_", "acc_", "perf_")),
                                 not n.startswith("acc_backend"), n))
    pool = ThreadPoolExecutor(max_workers=max(1, JOBS))
    futures: dict[str, Future] = {
        n: pool.submit(run_case, n, workdir, cache,
                       load_sidecar(CORPUS / f"{n}.expected.json").get("run_args"))
        for n in selected}
    yield futures
    pool.shutdown(wait=False, cancel_futures=True)


def _matches(diag: dict[str, Any], spec: dict[str, Any]) -> list[str]:
    """Why the diagnosis does not match the sidecar (empty: it matches)."""
    problems = []
    if diag["kind"] != spec["kind"]:
        problems.append(f"kind {diag['kind']!r} != {spec['kind']!r}")
    if spec.get("stage") and diag.get("stage") != spec["stage"]:
        problems.append(f"stage {diag.get('stage')!r} != {spec['stage']!r}")
    if spec.get("gb_code") and diag.get("gb_code") != spec["gb_code"]:
        problems.append(f"gb_code {diag.get('gb_code')!r} != {spec['gb_code']!r}")
    text = f"{diag.get('reason')} {diag.get('explanation')}".lower()
    if spec.get("reason") and spec["reason"].lower() not in text:
        problems.append(f"reason/explanation lacks {spec['reason']!r}: {diag.get('reason')!r}")
    if spec.get("fix") and spec["fix"].lower() not in (diag.get("fix") or "").lower():
        problems.append(f"fix lacks {spec['fix']!r}: {diag.get('fix')!r}")
    uf = diag.get("user_frame") or {}
    if not (uf.get("filename") or "").endswith("corpus/" + spec["script"]):
        problems.append(f"user file {uf.get('filename')!r} is not corpus/{spec['script']}")
    if uf.get("lineno") != spec["lineno"]:
        problems.append(f"user line {uf.get('lineno')} != {spec['lineno']}")
    if not uf.get("line"):
        problems.append("no source line")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_corpus_top_diagnosis(sidecar: Path, corpus_runs: dict[str, Future]) -> None:
    spec = load_sidecar(sidecar)
    name = sidecar.name[:-len(".expected.json")]
    if spec.get("known_gap"):
        pytest.xfail(f"known gap: {spec['known_gap']}")
    result = corpus_runs[name].result(timeout=TIMEOUT + 200)
    assert result["explain_rc"] == 0, result["explain_stderr"]
    doc = result["doc"]
    assert doc is not None and doc["schema_version"] >= 1
    assert doc["diagnoses"], (f"no diagnosis for {name}; run stderr:\n"
                              f"{result['run_stderr']}")
    top = doc["diagnoses"][0]
    problems = _matches(top, spec)
    assert not problems, f"{name}: top diagnosis does not match its sidecar: " + "; ".join(
        problems) + f"\n top: {json.dumps(top)[:1500]}"
    # The exit status is the program's own: failures exit non-zero, the rest zero.
    if spec["kind"] == "failure":
        assert result["run_rc"] != 0
    else:
        assert result["run_rc"] == 0, result["run_stderr"]


def test_every_corpus_script_has_a_sidecar() -> None:
    scripts = {p.stem for p in CORPUS.glob("*.py")} | {
        f"gpu/{p.stem}" for p in (CORPUS / "gpu").glob("*.py")}
    sidecars = {p.name[:-len(".expected.json")] for p in CORPUS.glob("*.expected.json")} | {
        f"gpu/{p.name[:-len('.expected.json')]}" for p in (CORPUS / "gpu").glob("*.expected.json")}
    assert scripts == sidecars, scripts ^ sidecars
    for path in sorted(CORPUS.rglob("*.expected.json")):
        spec = load_sidecar(path)
        assert (path.parent / spec["script"]).exists(), path
