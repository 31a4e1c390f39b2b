"""`compdiag import`: a TORCH_TRACE log into the store through the same normaliser as live
capture. The scenario's own TORCH_TRACE log (written during its `compdiag run`) is the input,
so the import must agree with the live run, and with tlparse on the same log."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cdtest import Proc, Session

pytestmark = pytest.mark.slow

_IMPORTED = re.compile(r"^compdiag: imported (\d+) records from (.+) as run (\d+)$", re.M)


def import_log(session: Session, path: Path, store: Path) -> tuple[Proc, list[int]]:
    p = session.compdiag("import", path, "--store", store)
    assert "Traceback" not in p.stderr, p.stderr
    return p, [int(m.group(3)) for m in _IMPORTED.finditer(p.stderr)]


@pytest.fixture(scope="module")
def imported(scenario: Proc, session: Session) -> dict:
    p, run_ids = import_log(session, scenario.extra["trace_log"], session.store)
    assert p.returncode == 0, p.stderr
    assert len(run_ids) == 1, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr  # no warnings for a whole log
    return session.show(run_ids[0])


def _gb(doc: dict) -> list[tuple]:
    return [(g["compile_id"], g["gb_code"], g["gb_type"], g["reason"], g["hints"],
             g["user_frame"]) for g in doc["graph_breaks"]]


def _kernels(doc: dict) -> list[tuple]:
    return [(k["compile_id"], k["name"], k["backend"], k["source"], k["fx_nodes"],
             k["fused_ops"]) for k in doc["kernels"]]


def test_import_agrees_with_the_live_run(scenario: Proc, imported: dict) -> None:
    live = scenario.extra["show"]
    assert imported["run"]["source"] == "import"
    assert imported["run"]["status"] == "imported"
    assert imported["run"]["warnings"] == []
    assert imported["run"]["argv"] == [str(scenario.extra["trace_log"])]
    assert imported["run"]["torch_version"] == live["run"]["torch_version"]
    assert [c["compile_id"] for c in imported["compiles"]] == \
        [c["compile_id"] for c in live["compiles"]]
    assert [(c["compile_id"], c["co_name"], c["status"], c["attempt"], c["frame"])
            for c in imported["compiles"]] == \
        [(c["compile_id"], c["co_name"], c["status"], c["attempt"], c["frame"])
         for c in live["compiles"]]
    assert _gb(imported) == _gb(live) and len(_gb(live)) == 1
    assert _kernels(imported) == _kernels(live) and len(_kernels(live)) == 2
    assert imported["recompiles"] == live["recompiles"] and len(live["recompiles"]) == 1
    assert imported["failures"] == live["failures"] == []


def _tlparse() -> str:
    exe = shutil.which("tlparse") or str(Path(sys.executable).parent / "tlparse")
    if not Path(exe).exists():
        pytest.fail("tlparse is not installed (it is in compdiag's dev extras: "
                    "pip install -e '.[dev]')")
    return exe


def test_compile_ids_match_tlparse(scenario: Proc, imported: dict, session: Session,
                                   tmp_path: Path) -> None:
    """tlparse lists one entry per compile id in compile_directory.json, restart attempts
    ('0/0_1') separately like compdiag does, plus '[-/-]' for records with no compile id."""
    tl_ids = _tlparse_ids(scenario.extra["trace_log"], tmp_path / "tl_out", session.env())
    ours = {c["compile_id"] for c in imported["compiles"]}
    live = {c["compile_id"] for c in scenario.extra["show"]["compiles"]}
    assert len(tl_ids) == len(ours) == len(live) == 5
    assert tl_ids == ours == live


def _tlparse_ids(log: Path, out: Path, env: dict[str, str]) -> set[str]:
    res = subprocess.run([_tlparse(), str(log), "-o", str(out), "--overwrite", "--no-browser"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stderr
    keys = set(json.loads((out / "compile_directory.json").read_text()))
    assert all(re.fullmatch(r"\[.*\]", k) for k in keys), keys
    return {k[1:-1] for k in keys} - {"-/-"}


@pytest.mark.parametrize("fraction", [0.2, 0.3, 0.45, 0.6, 0.8, 0.95])
def test_truncated_log_compile_ids_match_tlparse(scenario: Proc, session: Session,
                                                 tmp_path: Path, fraction: float) -> None:
    """Cut anywhere, even inside a restart attempt ('0/0_1', which has no dynamo_start and
    lost its compilation_metrics): compdiag still lists the compile ids tlparse lists."""
    data = scenario.extra["trace_log"].read_bytes()
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[:int(len(data) * fraction)])
    store = tmp_path / "cut.db"
    p, run_ids = import_log(session, cut, store)
    assert p.returncode == 0, p.stderr
    doc = session.show(run_ids[0], store=store)
    ours = {c["compile_id"] for c in doc["compiles"]}
    assert ours and ours == _tlparse_ids(cut, tmp_path / "tl", session.env())
    for c in doc["compiles"]:  # restarts keep their frame's code location
        assert c["co_name"] and c["filename"].endswith("scenario.py"), c


def _cut_mid_line(log: Path, dest: Path, *, payload: bool) -> str:
    """Copy `log` cut in the middle of a line near its middle: an envelope line, or a
    payload line (tab-prefixed) when `payload`. Returns the partial line that ends it."""
    data = log.read_bytes()
    lines = data.splitlines(keepends=True)
    offset, half = 0, len(data) // 2
    for line in lines:
        if offset >= half and len(line) > 40 and line.startswith(b"\t") == payload:
            cut = offset + len(line) // 2
            dest.write_bytes(data[:cut])
            return data[offset:cut].decode("utf-8", "replace")
        offset += len(line)
    raise AssertionError("no line to cut")


@pytest.mark.parametrize("where", ["envelope", "payload"])
def test_truncated_log_imports_partially(scenario: Proc, imported: dict, session: Session,
                                         tmp_path: Path, where: str) -> None:
    cut = tmp_path / f"cut-{where}.log"
    partial = _cut_mid_line(scenario.extra["trace_log"], cut, payload=where == "payload")
    assert not partial.endswith("\n")
    store = tmp_path / "cut.db"
    p, run_ids = import_log(session, cut, store)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 2, p.stderr  # one warning, then the summary
    assert lines[0].startswith("compdiag: warning: ") and str(cut) in lines[0]
    assert "truncated" in lines[0]
    assert _IMPORTED.match(lines[1])
    doc = session.show(run_ids[0], store=store)
    assert doc["run"]["status"] == "partial"
    assert len(doc["run"]["warnings"]) == 1 and doc["run"]["warnings"][0] in lines[0]
    # What came before the cut is there: a non-empty prefix of the full import.
    full = [c["compile_id"] for c in imported["compiles"]]
    got = [c["compile_id"] for c in doc["compiles"]]
    assert got and set(got) <= set(full)
    assert int(_IMPORTED.search(p.stderr).group(1)) > 10


def test_import_directory_one_run_per_file(scenario: Proc, session: Session,
                                           tmp_path: Path) -> None:
    d = tmp_path / "ranks"
    d.mkdir()
    shutil.copy(scenario.extra["trace_log"], d / "rank_0.log")
    _cut_mid_line(scenario.extra["trace_log"], d / "rank_1.log", payload=False)
    (d / ".hidden").write_text("ignored\n")
    store = tmp_path / "dir.db"
    p, run_ids = import_log(session, d, store)
    assert p.returncode == 0, p.stderr
    assert len(run_ids) == 2, p.stderr
    statuses = [session.show(r, store=store)["run"]["status"] for r in run_ids]
    assert statuses == ["imported", "partial"]


def test_import_bad_inputs_never_trace_back(session: Session, tmp_path: Path) -> None:
    store = tmp_path / "bad.db"
    missing = session.compdiag("import", tmp_path / "missing.log", "--store", store)
    assert missing.returncode == 2
    assert missing.stderr.startswith("compdiag: error: ") and missing.stderr.count("\n") == 1

    empty = tmp_path / "empty-dir"
    empty.mkdir()
    p = session.compdiag("import", empty, "--store", store)
    assert p.returncode == 2 and p.stderr.startswith("compdiag: error: "), p.stderr
    assert p.stderr.count("\n") == 1

    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(bytes(range(256)) * 40 + b"\nnot a trace\n\x00\xff\n")
    p = session.compdiag("import", garbage, "--store", store)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    assert "no structured-trace records found" in p.stderr
    assert all(line.startswith("compdiag: ") for line in p.stderr.splitlines()), p.stderr
