"""The user's source lines come from the store, not the files (issue 29 §1, layers): capture and
import keep the text of every user file a stored fact names (`sources`, ingest/sources.py),
and analyses and views read it through the Reader only. So explain says the same after the
script's folder moved or is gone, and on a store whose files are somebody else's."""

from __future__ import annotations

import ast
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from compdiag.analyses.explain import explain
from compdiag.ingest.reindex import reindex
from compdiag.store.reader import Reader
from compdiag.store.schema import StoreNeedsReindex
from cdtest import SCRIPTS, fork_server_env, shared_cache
from corpus_check import CORPUS, load_sidecar, run_case
from test_closure_cells import SRC as CLOSURE_SRC
from test_closure_cells import closure_reason
from test_explain import Store

ROOT = Path(__file__).resolve().parent.parent
# Corpus cases whose diagnosis quotes the user's file beyond the line torch reported: the
# closure cell's variable (the enclosing function's source), the config assignment a cache
# miss points at (a search of the compiled function's file), a failed check and the line
# torch noted.
MOVED_CASES = ("rc_closure_cell", "cache_reset_config", "program_check_equal")


def _explain(store: Path, cwd: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "compdiag", "explain", "--store", str(store),
                          "--json"], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("name", MOVED_CASES)
def test_explain_is_the_same_after_the_scripts_folder_moves_or_goes(name: str,
                                                                    tmp_path: Path) -> None:
    """Fails on main: rc_closure_cell's reason named `score_mod.__closure__[1].cell_contents`
    instead of `window` once the folder was gone (closure_cells read the file), and
    cache_reset_config lost the `fallback_random = True` line it points at (cache.py read the
    file); the store now keeps each user file's text. program_check_equal held on main (its
    check's line is in the stored traceback) and fails there only on the kept text."""
    proj, work = tmp_path / "proj", tmp_path / "work"
    proj.mkdir()
    work.mkdir()
    shutil.copy(CORPUS / f"{name}.py", proj / f"{name}.py")
    spec = load_sidecar(CORPUS / f"{name}.expected.json")
    # its own cache for a cache case (it needs its miss), the session's warm one otherwise;
    # forked by the session's server (benchmarks/test_time.md, round 5): this test is about
    # what the store keeps, not how a process starts or ends
    cache = tmp_path / "inductor-cache" if name.startswith("cache_") else shared_cache()
    result = run_case(name, work, cache, spec.get("run_args"), folder=proj,
                      extra_env=fork_server_env())
    assert result["doc"] is not None, result["run_stderr"] + result["explain_stderr"]
    store = Path(result["store"])
    before = _explain(store, work)
    proj.rename(tmp_path / "moved")
    assert _explain(store, work) == before
    shutil.rmtree(tmp_path / "moved")
    assert _explain(store, work) == before
    with Reader(store) as r:  # what it read instead: the script as it ran
        kept = r.source_lines(before["run"]["id"], str(proj / f"{name}.py"))
    assert kept == (CORPUS / f"{name}.py").read_text().splitlines()


# What analyses and views may read from files: none of them a user's. (module, function,
# why): the installed torch's graph-break registry, and minify's own repro it just wrote.
ALLOWED_READS = {
    ("compdiag/analyses/gb_registry.py", "gb_registry", "torch's own registry JSON"),
    ("compdiag/views/minify.py", "_lines", "the repro minify wrote, not a user file"),
}
FILE_READS = {"getline", "getlines", "updatecache", "checkcache", "open", "read_text",
              "read_bytes", "readlines", "lazycache", "exists", "isfile", "is_file",
              "getsize", "stat"}


def _file_reads(path: Path) -> list[tuple[str, int, str]]:
    """(enclosing function, line, call) of every file read in a module."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef,
                                                    ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Call):
                f = child.func
                called = f.attr if isinstance(f, ast.Attribute) else \
                    f.id if isinstance(f, ast.Name) else ""
                if called in FILE_READS:
                    found.append((func, child.lineno, called))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in child.names] + [getattr(child, "module", None) or ""]
                if "linecache" in mods or "tokenize" in mods:
                    found.append((func, child.lineno, "import linecache/tokenize"))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_no_analysis_or_view_reads_a_users_file() -> None:
    """Fails on main: analyses/context.py, diagnoses/program.py (linecache), diagnoses/cache.py
    and closure_cells.py (read_text) and views/explain.py (open) read the user's files at
    analysis time, and context.py and locate.py asked whether one exists. Only the Reader's
    `sources` may give their text, or say which the run kept."""
    bad = []
    for folder in ("compdiag/analyses", "compdiag/views"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for func, line, call in _file_reads(path):
                if not any(rel == m and func == f for m, f, _ in ALLOWED_READS):
                    bad.append(f"{rel}:{line} {func}() calls {call}")
    assert not bad, "\n".join(bad)


def test_the_lint_sees_the_reads_it_forbids(tmp_path: Path) -> None:
    """The check above can fail: each way of reading a file is found."""
    src = tmp_path / "m.py"
    src.write_text("import linecache\nfrom pathlib import Path\n"
                   "def a(f):\n    return linecache.getline(f, 1)\n"
                   "def b(f):\n    return Path(f).read_text()\n"
                   "def c(f):\n    with open(f) as fh:\n        return fh.read()\n"
                   "def d(f):\n    return os.path.exists(f)\n")
    calls = [(f, c) for f, _, c in _file_reads(src)]
    assert ("a", "getline") in calls and ("b", "read_text") in calls and ("c", "open") in calls
    assert ("d", "exists") in calls
    assert ("<module>", "import linecache/tokenize") in calls


def test_reindex_fills_an_older_stores_sources_from_the_files_still_there(
        tmp_path: Path) -> None:
    """Fails on main (no `sources`): a store of the layout before it (its sources gone, schema
    3) is refused by a read in one line; `compdiag reindex` upgrades it and keeps the text of
    the user file its facts name, from the file, so the closure cell is named again. A
    second reindex keeps the text it has (the file changed since: the run's text stays)."""
    s = Store(tmp_path)
    s.user.write_text(CLOSURE_SRC)
    s.compile("0/0", co_name="attend", lineno=16)
    s.compile("0/1", co_name="attend", lineno=16, recompile_reason=closure_reason(s.user))
    db = s.done()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE sources")
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreNeedsReindex):
        Reader(db)
    assert reindex(db).from_version == 3
    with Reader(db) as r:
        assert r.source_paths(s.run_id) == {str(s.user)}
        (d,) = [d.to_json() for d in explain(r, s.run_id) if d.kind == "recompile"]
    assert "captured variable window of score() changed" in d["reason"]
    s.user.write_text("changed = 1\n")
    reindex(db)
    with Reader(db) as r:
        assert r.source_lines(s.run_id, str(s.user)) == CLOSURE_SRC.splitlines()


@pytest.mark.slow
def test_an_imported_trace_keeps_the_user_files_its_facts_name(scenario, tmp_path: Path
                                                                ) -> None:
    """Fails on main (no `sources`): `compdiag import` of the scenario's TORCH_TRACE log keeps
    the text of tests/scripts/scenario.py, which its facts name and which is on this
    machine; with one log on two CPUs the import writes through writer_pipe, whose writer
    cannot read the facts back (the first cut kept nothing there: a run warning)."""
    from compdiag.importer.trace_log import import_trace

    script = SCRIPTS / "scenario.py"
    store = tmp_path / "imported.db"
    (res,) = import_trace(store, scenario.extra["trace_log"], workers=1)
    with Reader(store) as r:
        assert not [w for w in r.warnings(res.run_id) if "source files" in w]
        named = {p for p in r.source_paths(res.run_id) if Path(p).name == script.name}
        assert named, r.source_paths(res.run_id)
        for path in named:
            assert r.source_text(res.run_id, path) == script.read_text()
