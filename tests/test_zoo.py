"""CI's smoke of the model zoo (benchmarks/zoo/run.py, issue 32).

Two small transformers models (BERT for classification, GPT-2 with its loss, whose
`warning_once` breaks the graph), inference only, plain and under `compdiag run`. Each row
must say that compdiag left the program's exit status and output unchanged, raised no warning
and printed no traceback of its own, and counted the graphs and graph breaks torch counted in
the plain run (`torch._dynamo.utils.counters`: breaks Dynamo cannot resume from are the
documented difference, docs/zoo.md); and explain's top diagnosis must point at a line that
exists, and the store must keep issue 29's principles (tests/principles_check.py, as every
corpus store does). The full zoo (30+ models, training steps) is `python benchmarks/zoo/run.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cdtest import REPO

pytest.importorskip("transformers")

MODELS = ["hf_bert_cls", "hf_gpt2"]


@pytest.mark.slow
def test_zoo_smoke_two_models(tmp_path):
    p = subprocess.run([sys.executable, str(REPO / "benchmarks/zoo/run.py"), "--models",
                        ",".join(MODELS), "--infer-only", "--no-cold", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    (out,) = tmp_path.glob("*-cpu.json")
    rows = json.loads(out.read_text())
    assert sorted(r["model"] for r in rows) == sorted(MODELS)
    for r in rows:
        assert not r.get("skipped"), r
        assert r["unchanged"] and r["plain_exit"] == 0, r
        assert r["compdiag_warnings"] == [] and r["compdiag_stderr"] == [], r
        assert r["graphs"] == r["graphs_torch"] > 0, r
        assert r["graph_breaks"] - r["graph_breaks_unresumable"] == r["graph_breaks_torch"], r
        assert r["top_line_exists"] is not False, r
        assert r["principles"] == [], r["principles"]  # issue 29's, as over the corpus
    gpt2 = next(r for r in rows if r["model"] == "hf_gpt2")
    assert gpt2["graph_breaks"] > 0 and gpt2["top_kind"] == "graph_break", gpt2
