"""docs/json.md is the `--json` contract: every key it documents is in the real output of the
command (runs, show, explain, check, perf, diff here, over the TUI's hand-built demo store,
no torch; minify and bisect in their own e2e tests, which already produce those documents)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cdtest import base_env, compdiag_args, run_cmd
from json_doc import assert_documented, documented_keys, missing_keys, undocumented_top_keys



@pytest.fixture
def demo(demo_store: Path) -> Path:
    return demo_store


def _json(store: Path, *args: str) -> dict:
    p = run_cmd(compdiag_args(*args, "--store", store, "--json"), env=base_env())
    assert p.stdout.strip(), p.stderr
    return json.loads(p.stdout)


def test_every_section_parses() -> None:
    for section in ("run", "runs", "show", "explain", "check", "perf", "diff", "minify",
                    "bisect"):
        keys = documented_keys(section)
        assert all(k and " " not in k for k, _ in keys), keys
    assert ("runs[].counts.compiles", False) in documented_keys("runs")
    assert ("config", True) in documented_keys("bisect")


def test_the_checker_finds_a_missing_key() -> None:
    """The check itself can fail: a document without `compiles[].status` is caught."""
    doc = {"schema_version": 1, "compiles": [{"compile_id": "0/0"}]}
    assert "compiles[].status" in missing_keys(doc, "show")


@pytest.mark.parametrize("args,section,prefix", [
    (["runs"], "runs", ""), (["show"], "show", ""), (["show"], "run", "run."),
    (["explain"], "explain", ""), (["check", "2"], "check", ""),
    (["diff", "1", "2"], "diff", ""),
])
def test_documented_keys_are_in_real_output(demo: Path, tmp_path: Path, args, section,
                                            prefix) -> None:
    store = tmp_path / "s.db"
    shutil.copy(demo, store)
    doc = _json(store, *args)
    assert_documented(doc, section, prefix=prefix)
    if not prefix:
        assert undocumented_top_keys(doc, section) == [], "add them to docs/json.md"


def test_perf_document(demo: Path, tmp_path: Path) -> None:
    """`compdiag perf RUN --json` (options after a stored RUN) over raw samples in the store:
    the analysis runs for real, only the samples are made up."""
    store = tmp_path / "s.db"
    shutil.copy(demo, store)
    p = run_cmd(compdiag_args("perf", "2", "--store", store, "--json"), env=base_env())
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["modes"] is not None  # the filed report compared two modes
    assert_documented(doc, "perf")
    assert undocumented_top_keys(doc, "perf") == []
