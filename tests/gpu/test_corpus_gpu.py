"""The GPU corpus (corpus/gpu/: CUDA-graph skips under mode="reduce-overhead", a Triton kernel
that does not compile), end to end like tests/test_corpus.py: `compdiag run`, `compdiag explain
--json`, top diagnosis vs its sidecar. Skips without CUDA."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_check import CORPUS, case_problems, load_sidecar, run_case  # noqa: E402

SIDECARS = sorted((CORPUS / "gpu").glob("*.expected.json"))


@pytest.fixture(scope="module")
def gpu_runs(tmp_path_factory: pytest.TempPathFactory):
    workdir = tmp_path_factory.mktemp("corpus-gpu")
    cache = workdir / "inductor-cache"
    cache.mkdir()
    names = [p.name[:-len(".expected.json")] for p in SIDECARS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {n: pool.submit(run_case, f"gpu/{n}", workdir, cache) for n in names}
        yield futures


@pytest.mark.gpu
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_gpu_corpus_top_diagnosis(sidecar: Path, gpu_runs) -> None:
    spec = load_sidecar(sidecar, torch.__version__)
    name = sidecar.name[:-len(".expected.json")]
    result = gpu_runs[name].result()
    problems = case_problems(result, {**spec, "script": f"gpu/{spec['script']}"})
    top = (result["doc"] or {}).get("diagnoses", [None])[:1]
    assert not problems, f"{name}: " + "; ".join(problems) + f"\n top: {json.dumps(top)[:1500]}"


@pytest.mark.gpu
@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.name[:-len(".expected.json")])
def test_gpu_corpus_store_keeps_the_principles(sidecar: Path, gpu_runs) -> None:
    """Issue 29's principles over every GPU corpus store, as tests/test_corpus.py holds every
    CPU one (tests/principles_check.py's store_property_problems: §1's lines, the folds, §2
    to §6). Until now only replays of recorded GPU fixtures were held to them
    (tests/test_locate.py), never a live CUDA run."""
    from principles_check import store_property_problems

    name = sidecar.name[:-len(".expected.json")]
    result = gpu_runs[name].result()
    assert result["doc"] is not None, result.get("explain_stderr")
    problems = store_property_problems(Path(result["store"]), result["doc"]["diagnoses"])
    assert not problems, f"{name}: {problems}"
