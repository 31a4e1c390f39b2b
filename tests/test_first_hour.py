"""What a new user meets in the first hour (issue 24): read commands never touch a file they
refuse, options after SCRIPT are refused, --version, help and completion, fast failures before
torch, the traceback as plain python prints it, gzip imports, no empty runs, and output that
stays readable at 80 columns.

Cheap on purpose: in-process CLI calls, the TUI's hand-built demo store, trace-shaped records;
the only compile is one plain-python run of tests/scripts/fail_kernel.py (the traceback)."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from cdtest import REPO, SCRIPTS, Proc, Session, base_env, compdiag_args, run_cmd

from compdiag.cli import build_parser, main
from compdiag.formats.words import plural
from compdiag.store.reader import Reader
from compdiag.store.schema import StoreError

WIDTH = 80


@pytest.fixture
def demo(demo_store: Path) -> Path:
    return demo_store


def _cli(capsys, *argv: str | Path) -> tuple[int, str, str]:
    """`compdiag ARGV` in this process: (exit status, stdout, stderr)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own exits (--help, --version, usage errors)
        code = exc.code if isinstance(exc.code, int) else 2
    out = capsys.readouterr()
    return code, out.out, out.err


# -- data safety: a read command never creates or changes a file -------------------------------
def _foreign(path: Path, wal: bool) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE photos (id INTEGER, data BLOB)")
    conn.execute("INSERT INTO photos VALUES (1, x'00ff')")
    conn.commit()
    conn.close()


def _listing(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


READ_COMMANDS = [["runs"], ["runs", "--json"], ["show"], ["show", "1", "--json"], ["explain"],
                 ["explain", "--json"], ["perf", "1"], ["perf", "1", "--json"],
                 ["diff", "1", "2"], ["minify"], ["minify", "1", "--json"], ["bisect", "1"],
                 ["check", "1"], ["tui"], ["reindex"], ["report", "--no-minify"]]


@pytest.mark.parametrize("kind", ["foreign", "foreign_wal", "empty"])
def test_read_commands_leave_the_file_as_it_was(kind: str, tmp_path: Path, capsys,
                                                monkeypatch) -> None:
    """The bytes of somebody else's SQLite file (rollback or WAL journal) and of an empty file
    are the same after every read command, and nothing is created beside them (no -wal, -shm,
    no repro.py)."""
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "other.db"
    if kind == "empty":
        store.write_bytes(b"")
    else:
        _foreign(store, wal=kind == "foreign_wal")
    before = _listing(tmp_path)
    for args in READ_COMMANDS:
        code, out, err = _cli(capsys, *args, "--store", store)
        assert code == 2 and out == "", (args, code, out, err)
        assert err.startswith("compdiag: error: ") and err.count("\n") == 1, (args, err)
        assert ("not a compdiag store" if kind != "empty" else "empty store") in err, err
        assert _listing(tmp_path) == before, args
    from compdiag_tui.model import StoreModel  # the TUI's own door to the store

    with pytest.raises(StoreError):
        StoreModel(store)
    assert _listing(tmp_path) == before


@pytest.mark.parametrize("wal", [False, True])
def test_run_and_import_refuse_a_foreign_file_untouched(wal: bool, tmp_path: Path,
                                                        capsys) -> None:
    store = tmp_path / "other.db"
    _foreign(store, wal=wal)
    script = tmp_path / "fine.py"
    script.write_text("print('fine')\n")
    log = tmp_path / "trace.log"
    log.write_text('V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:1] '
                   '{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0}\n')
    before = _listing(tmp_path)
    for args in (["run", "--store", store, script], ["import", "--store", store, log],
                 ["check", "--store", store, script], ["perf", "--store", store, script]):
        code, out, err = _cli(capsys, *args)
        assert code == 2 and "not a compdiag store" in err, (args, err)
        assert _listing(tmp_path) == before, args


# -- options after SCRIPT ----------------------------------------------------------------------
@pytest.mark.parametrize("args,option", [
    (["check", "{s}", "--junit", "{d}/out.xml"], "--junit"),
    (["perf", "{s}", "--json"], "--json"),
    (["run", "{s}", "--store", "{d}/x.db"], "--store"),
    (["run", "{s}", "a", "--check-accuracy"], "--check-accuracy"),
    (["run", "-m", "fine", "--mode=max-autotune"], "--mode"),
    (["check", "{s}", "--rtol=0.1"], "--rtol"),
])
def test_options_after_script_are_refused_before_anything_runs(args, option, tmp_path: Path,
                                                               capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fine.py").write_text("print('fine')\n")
    argv = [a.format(s=tmp_path / "fine.py", d=tmp_path) for a in args]
    start = time.monotonic()
    code, out, err = _cli(capsys, *argv)
    assert code == 2, err
    after = "MODULE" if "-m" in args else "SCRIPT"
    assert err == (f"compdiag: error: {option} after {after} would go to the script: put "
                   "compdiag's options before SCRIPT, or use -- to pass them to the script\n")
    assert time.monotonic() - start < 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fine.py"]  # no store, no out.xml


def test_a_dash_dash_hands_them_to_the_script(tmp_path: Path) -> None:
    """`compdiag run S -- --store x` is `python S --store x` (cmd_run's argv, no program run:
    run_program is replaced by a recorder)."""
    import compdiag.capture.runner as runner

    seen = []
    script = tmp_path / "fine.py"
    script.write_text("print('fine')\n")
    original = runner.run_program
    runner.run_program = lambda store, target, **kw: (seen.append(target), (0, 1))[1]
    try:
        assert main(["run", "--store", str(tmp_path / "s.db"), str(script), "--", "--store",
                     "y", "--"]) == 0
        assert main(["run", "--store", str(tmp_path / "s.db"), str(script), "a", "--",
                     "--store"]) == 0
    finally:
        runner.run_program = original
    assert seen == [[str(script), "--store", "y", "--"], [str(script), "a", "--", "--store"]]


def test_perf_and_check_take_options_after_a_stored_run(demo: Path, tmp_path: Path,
                                                        capsys) -> None:
    store = tmp_path / "s.db"
    store.write_bytes(demo.read_bytes())
    code, out, err = _cli(capsys, "perf", "2", "--json", "--store", store)
    assert code == 0, err
    assert json.loads(out)["runs"][0]["run"] == 2
    code, out, err = _cli(capsys, "check", "1", "--store", store, "--json")
    assert code == 0 and json.loads(out)["run"] == 1, err
    code, out, err = _cli(capsys, "perf", "2", "--store", store, "--bogus")
    assert code == 2 and "unrecognized arguments after RUN: --bogus" in err


# -- --version, help, completion ---------------------------------------------------------------
def test_version_names_compdiag_and_torch_without_importing_torch() -> None:
    code = ("import sys\nfrom compdiag.cli import main\ntry:\n    main(['--version'])\n"
            "except SystemExit:\n    pass\nprint('torch' in sys.modules)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=base_env(), timeout=60)
    from importlib.metadata import version

    line, imported = p.stdout.splitlines()
    assert re.match(rf"compdiag \S+ \(torch {re.escape(version('torch'))}, python ", line), line
    assert imported == "False"


def _subparsers(parser):
    import argparse

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_command_has_a_description_two_examples_and_help_on_every_argument() -> None:
    parser = build_parser()
    commands = _subparsers(parser)
    assert len(commands) >= 12
    for name, sub in commands.items():
        assert sub.description and len(sub.description) > 40, name
        assert sub.epilog and sub.epilog.count("\n  $ compdiag ") == 2, (name, sub.epilog)
        for action in sub._actions:
            assert action.help, (name, action.dest)
    for action in parser._actions:
        assert action.help, action.dest


@pytest.mark.parametrize("command", ["", "run", "check", "perf", "show", "explain", "bisect",
                                     "import", "tui", "report"])
def test_help_at_80_columns(command: str, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    p = run_cmd(compdiag_args(*([command] if command else []), "--help"),
                env={**base_env(), "COLUMNS": str(WIDTH)})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert max(map(len, lines)) <= WIDTH, max(lines, key=len)
    assert "examples:" in p.stdout and "Usage: compdiag" in p.stdout
    if command in ("run", "check", "perf"):
        usage = p.stdout[:p.stdout.index("\n\n")]
        # compdiag's options come before SCRIPT in the synopsis
        assert usage.index("--store") < usage.index("SCRIPT"), usage


def test_shell_completion(capsys) -> None:
    for shell in ("bash", "zsh"):
        code, out, _ = _cli(capsys, "--print-completion", shell)
        assert code == 0
        assert "compdiag" in out and "explain" in out and "--junit" in out


# -- fast failures -----------------------------------------------------------------------------
@pytest.mark.parametrize("case,code,words", [
    ("syntax", 1, "bad.py:2: SyntaxError: "),
    ("module", 1, "No module named 'no_such_module_xyz'"),
    ("dotted", 1, "No module named 'json.no_such_part'"),
    ("missing", 2, "can't open file"),
    # issue 30 item 11: a folder without __main__.py printed python's chained ImportError
    # from the child and recorded a run (fails on main); python's own status for it is 1
    ("folder", 1, "can't find '__main__' module in 'pkg'"),
    ("zip", 1, "can't find '__main__' module in 'app.zip'"),
])
def test_a_program_that_cannot_start_fails_fast_before_torch(case: str, code: int, words: str,
                                                             tmp_path: Path) -> None:
    import zipfile

    (tmp_path / "bad.py").write_text("x = 1\ndef f(:\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text("print('not __main__')\n")
    with zipfile.ZipFile(tmp_path / "app.zip", "w") as z:
        z.writestr("model.py", "print('not __main__')\n")
    target = {"syntax": ["bad.py"], "module": ["-m", "no_such_module_xyz"],
              "dotted": ["-m", "json.no_such_part"], "missing": ["nope.py"],
              "folder": ["pkg"], "zip": ["app.zip"]}[case]
    prog = ("import sys\nfrom compdiag.cli import main\n"
            f"rc = main(['run', '--store', 's.db', *{target!r}])\n"
            "print(rc, 'torch' in sys.modules)\n")
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                       env=base_env(), cwd=tmp_path, timeout=60)
    wall = time.monotonic() - start
    assert p.stdout.split() == [str(code), "False"], (p.stdout, p.stderr)
    *python_says, ours = p.stderr.splitlines()
    assert ours.startswith("compdiag: error: ") and words in ours, p.stderr
    assert "did not start" in ours or case == "missing", p.stderr
    if case == "syntax":  # python's own lines first, as `python bad.py` prints them
        plain = subprocess.run([sys.executable, "bad.py"], capture_output=True, text=True,
                               cwd=tmp_path)
        assert python_says == plain.stderr.splitlines() and "^" in python_says[-2]
    else:
        assert python_says == []
    assert wall < 3, wall
    assert not (tmp_path / "s.db").exists()  # no run recorded, no store made


# -- the program's traceback -------------------------------------------------------------------
def _traceback(stderr: str, cache: str) -> list[str]:
    lines = stderr.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("Traceback "))
    block = [line.replace(cache, "<cache>") for line in lines[start:]
             if not line.startswith("compdiag: ")]
    return block


@pytest.mark.slow
def test_traceback_of_a_compiled_graph_is_plain_pythons(session: Session, fail_kernel: Proc,
                                                        tmp_path: Path) -> None:
    """A runtime error inside compiled code: stderr's traceback is the one plain python prints
    (no compdiag frame such as capture/failure_graphs.py's `run`, no doubled torch `_fn`).
    Both runs compile cold (the fixture into the session's shared cache, where no other test
    compiles fail_kernel.py's graphs; this one into its own), so torch builds its wrappers the
    same way."""
    cache = tmp_path / "cache"
    plain = run_cmd([sys.executable, str(SCRIPTS / "fail_kernel.py")],
                    env=base_env(cache), cwd=session.root)
    assert plain.returncode == fail_kernel.returncode == 1
    want = _traceback(plain.stderr, str(cache))
    got = _traceback(fail_kernel.stderr, str(session.cache))
    assert want[-1] == "RuntimeError: unhandled error", want
    assert not any("compdiag" in line for line in got), got
    assert got == want


# -- import ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_gzip_log_imports_like_the_plain_one(session: Session, scenario: Proc,
                                             tmp_path: Path) -> None:
    log = scenario.extra["trace_log"]
    gz = tmp_path / (log.name + ".gz")
    gz.write_bytes(gzip.compress(log.read_bytes()))
    store = tmp_path / "s.db"
    for path in (log, gz):
        p = session.compdiag("import", path, "--store", store)
        assert p.returncode == 0, p.stderr
    plain, packed = (session.show(r, store=store) for r in (1, 2))
    for doc in (plain, packed):
        for key in ("id", "argv", "started_at"):
            doc["run"].pop(key)
        for lookup in doc.get("caches") or []:
            # why a lookup missed is read against the store's earlier runs: the second import
            # finds the first one's keys (a 'same_key' miss), the first finds none ('cold')
            lookup.pop("why", None)
    assert packed == plain
    assert plain["compiles"], plain


def test_a_cut_gzip_log_imports_what_it_holds(tmp_path: Path, capsys) -> None:
    line = ('V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:1] {"dynamo_start": '
            '{"stack": []}, "frame_id": %d, "frame_compile_id": 0, "attempt": 0}\n')
    data = gzip.compress("".join(line % i for i in range(2000)).encode())
    log = tmp_path / "cut.log.gz"
    log.write_bytes(data[:len(data) * 2 // 3])
    code, _, err = _cli(capsys, "import", log, "--store", tmp_path / "s.db")
    assert code == 0, err
    assert "the compressed log ends early" in err
    with Reader(tmp_path / "s.db") as r:
        (run,) = r.runs()
        assert run["status"] == "partial"
        assert 0 < r.counts(run["id"])["records"] < 2000


def test_a_failed_import_leaves_no_run(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.db"
    good = tmp_path / "good.log"
    good.write_text('V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:1] '
                    '{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0}\n')
    assert _cli(capsys, "import", good, "--store", store)[0] == 0
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(bytes(range(256)) * 40 + b"\nnot a trace\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("no trace here\n")
    (notes / "b.log.gz").write_bytes(gzip.compress(b"nor here\n"))
    empty = tmp_path / "empty"
    empty.mkdir()
    for path, want in ((garbage, 1), (notes, 1), (empty, 2)):
        code, _, err = _cli(capsys, "import", path, "--store", store)
        assert code == want, err
        assert "imported 0 records" not in err
    with Reader(store) as r:
        assert [run["argv"] for run in r.runs()] == [[str(good)]]  # the latest is still good
        assert r.resolve_run(None) == 1


def test_failed_imports_use_up_no_run_ids(tmp_path: Path, capsys) -> None:
    """Issue 30 item 11: three failed imports, then a good one, made run 5 of a store holding
    two runs. The next run after a discarded one takes its id. Fails on main (run 5)."""
    store = tmp_path / "s.db"
    good = tmp_path / "good.log"
    good.write_text('V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:1] '
                    '{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0}\n')
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(bytes(range(256)) * 40 + b"\nnot a trace\n")
    assert _cli(capsys, "import", good, "--store", store)[0] == 0
    for _ in range(3):
        assert _cli(capsys, "import", garbage, "--store", store)[0] == 1
    code, _, err = _cli(capsys, "import", good, "--store", store)
    assert code == 0 and "as run 2" in err, err
    with Reader(store) as r:
        assert [run["id"] for run in r.runs()] == [1, 2]


# -- output a person reads, at 80 columns ------------------------------------------------------
def _render(fn, *args) -> str:
    console = Console(width=WIDTH, record=True, file=io.StringIO(), force_terminal=False)
    fn(*args, console)
    return console.export_text()


def _readable(text: str) -> None:
    lines = text.splitlines()
    assert max(map(len, lines)) <= WIDTH, max(lines, key=len)
    assert "None" not in text, text
    assert not re.search(r"\w…(\s|$)", text), text  # no cut header or number ("sour…", "57.9…")


def test_runs_show_perf_fit_80_columns(demo: Path) -> None:
    from compdiag.views.perf import print_document
    from compdiag.views.show import print_runs, print_show, show_document

    with Reader(demo) as r:
        runs = _render(print_runs, r)
        show = _render(print_show, show_document(r, 2))
    _readable(runs)
    header = next(line for line in runs.splitlines() if line.startswith("run "))
    assert header.split() == ["run", "status", "exit", "compiles", "breaks", "recompiles",
                              "failures", "argv"]
    assert "model.py" in runs
    _readable(show)
    assert re.search(r"model\.py:15 ", show) and "graph_break" in show
    assert "14 compiles" in show and "20 kernels" in show
    with Reader(demo) as r:
        doc = json.loads(r.perf_report(2) and json.dumps(r.perf_report(2)))
    perf = _render(print_document, doc)
    _readable(perf)
    head = next(line for line in perf.splitlines() if line.startswith("graph "))
    assert head.split()[:6] == ["graph", "function", "eager", "compiled", "speed-up", "95%"]
    assert re.search(r"\b\d+(\.\d+)?x\b", perf)


def test_long_paths_keep_file_and_line(tmp_path: Path) -> None:
    from compdiag.views.show import print_show
    from compdiag.views.table import short_path

    deep = "/very/long/path/that/goes/on/and/on/into/the/project/src/package/module.py"
    assert short_path(deep, 1234, 30) == "…/src/package/module.py:1234"
    assert short_path(deep, 7, 12) == "module.py:7"
    assert short_path("a.py", 3, 80) == "a.py:3"
    doc = {"run": {"id": 4, "argv": ["x.log"], "exit_code": None, "status": "imported",
                   "torch_version": None, "device": None, "warnings": []},
           "compiles": [{"compile_id": "0/0", "co_name": "torch_dynamo_resume_in_forward_at_9",
                         "filename": deep, "lineno": 1234, "status": "ok",
                         "stage_times": {}}],
           "graph_breaks": [], "recompiles": [], "failures": [], "kernels": [],
           "cudagraphs": [], "fusion": []}
    text = _render(print_show, doc)
    _readable(text)
    assert "module.py:1234" in text
    assert text.splitlines()[0] == "run 4 x.log  imported"  # exit=None torch=None: left out


def test_plural() -> None:
    assert plural(1, "compiled graph") == "1 compiled graph"
    assert plural(2, "compiled graph") == "2 compiled graphs"
    assert plural(0, "query") == "0 queries" and plural(3, "process") == "3 processes"
    assert plural(2, "diagnosis", "diagnoses") == "2 diagnoses"


def test_check_says_one_graph(capsys) -> None:
    from compdiag.analyses.accuracy import AccuracyReport, GraphVerdict
    from compdiag.views.check import print_check

    rep = AccuracyReport(run_id=1, exit_code=0, status="done", warnings=[], graphs=[
        GraphVerdict("0/0", True, [{"output": "o", "ok": True, "max_abs": 0.0,
                                    "max_rel": 0.0}])])
    assert "1 compiled graph matches eager" in _render(print_check, rep)


def test_check_says_a_graph_that_draws_its_own_random_numbers_was_not_compared() -> None:
    """probes43e train_running_stats_dict_ok, blind: a dropout graph explain called "not
    comparable with eager" was "graph 0/0: ok" and "1 compiled graph matches eager" in check:
    a CI user read it as verified. Now check says it was not compared; the gate passes."""
    from compdiag.analyses.accuracy import AccuracyReport, GraphVerdict
    from compdiag.views.check import print_check

    g = GraphVerdict("0/0", True, [{"output": "output 0", "ok": False, "max_abs": 0.2,
                                    "max_rel": 1.0}],
                     not_comparable="not comparable with eager: the graph draws its own "
                                    "random numbers")
    rep = AccuracyReport(run_id=1, exit_code=0, status="done", warnings=[], graphs=[g])
    text = " ".join(_render(print_check, rep).split())
    assert "not compared" in text and "matches eager" not in text, text
    assert "no compiled graph could be compared" in text and rep.verdict == 0


def test_check_says_an_ill_conditioned_graph_within_tolerance_is_one() -> None:
    """probes39g zscore_onepass_price, blind: a one-pass variance amplified rounding;
    explain reported it (ill-conditioned) while check said only "1 compiled graph matches
    eager". The gate still passes; the words say what explain says."""
    from compdiag.analyses.accuracy import AccuracyReport, GraphVerdict
    from compdiag.views.check import print_check

    rep = AccuracyReport(run_id=1, exit_code=0, status="done", warnings=[], graphs=[
        GraphVerdict("0/0", True, [{"output": "output 0", "ok": True, "max_abs": 0.08,
                                    "max_rel": 0.1, "detail": {"verdict": "ill_conditioned"}}])])
    text = " ".join(_render(print_check, rep).split())
    assert "ill-conditioned" in text and "within tolerance" in text, text
    assert rep.verdict == 0


def test_check_says_how_a_failed_script_ended(tmp_path: Path) -> None:
    """probes24 rmsnorm_bf16_grad_check: `compdiag check` of a script whose own gradient check
    failed printed only "the script failed (exit 1, run 1)". It says the exception and the
    line, from the store, in the text and in --json's `ended`."""
    from test_explain import Store

    from compdiag.analyses.accuracy import report
    from compdiag.store.reader import Reader
    from compdiag.views.check import check_document, print_check

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.ing.program_exception(None, exc_type="AssertionError",
                            message="compiled gradients differ from eager\nmore",
                            frames=[{"filename": str(s.user), "lineno": 46, "name": "<module>",
                                     "line": "assert torch.equal(a, b)"}], compiled=None)
    s.done()
    with Reader(s.path) as r:
        rep = report(r, s.run_id)
    text = _render(print_check, rep)
    assert "the script failed" in text and \
        "AssertionError at user_script.py:46: compiled gradients differ from eager" in \
        " ".join(text.split())
    assert check_document(rep)["ended"].startswith("AssertionError at user_script.py:46")


# -- explain's header adds up ------------------------------------------------------------------
def test_explain_header_says_what_was_folded(tmp_path: Path) -> None:
    from test_explain import resume_recompile_store

    from compdiag.views.explain import explain_document, print_explain

    s = resume_recompile_store(tmp_path)
    s.graph_break("0/0", 5, gb_type="Unsupported context manager", code="GB0142", skipped=True)
    s.graph_break("0/1", 5, gb_type="Unsupported context manager", code="GB0142")
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Unsupported context manager", traceback="")
    s.done()
    with Reader(s.path) as r:
        doc = explain_document(r, s.run_id)
    assert [d["kind"] for d in doc["diagnoses"]] == ["graph_break", "recompile"]
    assert doc["folded"][0]["kind"] == "failure" and doc["folded"][0]["into"] == "graph_break"
    text = " ".join(_render(print_explain, doc).split())
    assert ("4 compiles; 1 problem below: 1 graph break; 1 for information (nothing to fix): "
            "1 recompile") in text
    assert "2 graph breaks recorded at 1 place" in text
    assert "2 recompile reasons recorded, diagnosed as 1 recompile" in text
    assert "1 failure folded into the graph break diagnosis" in text
    assert "recompile reasons, " not in text.split("╭")[0].split("·")[0]


def test_explain_header_speaks_without_jargon() -> None:
    """Issue 30 item 11: explain's header said "a failure row (a compile stage's, or the
    run-time one capture wrote)": store and capture internals. Every fold's note reads in a
    user's words. Fails on main."""
    from compdiag.analyses.explain import relations
    from compdiag.views.explain import header_lines

    # one recompile reason for the one recompile panel: the counts note stays out of it
    run = {"id": 1, "argv": ["m.py"], "status": "done", "exit_code": 1,
           "counts": {"recompiles": 1}}
    for rel in relations():
        doc = {"run": run, "diagnoses": [{"kind": rel.cause, "severity": "error"}],
               "folded": [{"kind": rel.effect, "into": rel.cause, "why": rel.why}]}
        text = " ".join(header_lines(doc)).lower()
        for jargon in ("row", "capture", "stage's", "ctx", "record"):
            assert not re.search(rf"\b{jargon}", text), (jargon, text)


# -- perf's progress ---------------------------------------------------------------------------
def test_perf_progress_channel_and_bars(monkeypatch) -> None:
    from compdiag.capture.progress import Channel, emit
    from compdiag.views.perf import ProgressView

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=WIDTH)
    with ProgressView(console) as view:
        view.process_started("default", 0, 1)
        channel = Channel(lambda e: view.event("default", e), view.tick)
        monkeypatch.setenv("COMPDIAG_PROGRESS_FD", str(channel.write_fd))
        emit("timing", compile_id="0/0", budget_s=0.2)
        deadline = time.monotonic() + 5
        while not view.timing and time.monotonic() < deadline:
            time.sleep(0.02)
        tasks = {t.description: t for t in view.bar.tasks}
        assert "mode default · graph 0/0" in tasks
        time.sleep(0.3)
        assert 0 < tasks["mode default · graph 0/0"].completed < 0.2  # moves, waits at 99%
        emit("timed", compile_id="0/0", samples=9)
        while view.timing and time.monotonic() < deadline:
            time.sleep(0.02)
        channel.close()
        view.process_done("default")
        assert tasks["mode default · graph 0/0"].finished
        assert view.bar.tasks[0].finished
    assert "graph 0/0" in out.getvalue()


# -- the TUI's help ----------------------------------------------------------------------------
def test_tui_help_explains_compile_ids_and_resume_functions(demo: Path) -> None:
    from compdiag_tui import CompdiagApp
    from compdiag_tui.screens import HelpScreen
    from compdiag_tui.screens._help import HELP

    assert "`0/0`" in HELP and "torch_dynamo_resume_in_f_at_12" in HELP

    async def go() -> None:
        app = CompdiagApp(demo)
        async with app.run_test(size=(100, 40)) as pilot:
            for _ in range(200):
                if len(app.screen_stack) > 1 and app.screen.is_mounted:
                    break
                await pilot.pause(0.02)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(go())
    doc = (REPO / "docs" / "explain.md").read_text()
    assert "## Reading compile ids and resume functions" in doc


# -- --json commands that run a program: stdout is the document alone (issue 30 item 2) ------
_PRINTS = """import os, sys
print("the program's own line")
sys.stdout.flush()
os.system("echo a child process line")
"""


def _runs_program_with_json(parser) -> list[str]:
    """Every subcommand that has --json and runs a program (SCRIPT, or bisect's -- CMD)."""
    import argparse

    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                dests = {a.dest for a in sub._actions}
                if "json" in dests and ({"target", "words"} & dests):
                    out.append(name)
    return sorted(set(out))


def test_json_commands_that_run_a_script_print_the_document_alone(tmp_path: Path) -> None:
    """Issue 30 item 2: `check --json SCRIPT`, `perf --json SCRIPT` and `bisect --json -- CMD`
    pipe into json.loads although the program prints (itself and from a child process): its
    stdout goes to stderr. Fails on main (check's stdout starts with the program's line).
    The script compiles nothing, so each command costs a python start, not a compile."""
    assert _runs_program_with_json(build_parser()) == ["bisect", "check", "perf"]
    script = tmp_path / "prints.py"
    script.write_text(_PRINTS)
    store = tmp_path / "s.db"
    commands = {
        "check": ["check", "--json", "--store", store, script],
        "perf": ["perf", "--json", "--store", tmp_path / "p.db", script],
        "bisect": ["bisect", "--json", "--store", tmp_path / "b.db", "--",
                   sys.executable, script],
    }
    procs = {name: subprocess.Popen(compdiag_args(*args), cwd=tmp_path, env=base_env(),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    stdin=subprocess.DEVNULL)
             for name, args in commands.items()}
    for name, p in procs.items():
        out, err = p.communicate(timeout=600)
        assert "Traceback" not in err and out.startswith("{"), (name, out, err)
        doc = json.loads(out)  # the whole of stdout is one document
        assert doc["schema_version"] == 1, name
        if name != "bisect":  # bisect's probes keep their output to themselves
            assert "the program's own line" in err and "a child process line" in err, \
                (name, err)


# -- tables at any width: names whole or shortened in the middle, never broken (item 9) ----
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ident = st.from_regex(r"\A[a-z_][a-z0-9_]{0,39}\Z")
_path = st.builds(lambda dirs, name: "/" + "/".join([*dirs, name + ".py"]),
                  st.lists(st.from_regex(r"\A[a-z][a-z0-9_-]{0,11}\Z"), max_size=6),
                  st.from_regex(r"\A[a-z_][a-z0-9_]{0,17}\Z"))


def _middle_of(token: str, name: str) -> bool:
    if token == name:
        return True
    head, sep, tail = token.partition("…")
    return bool(sep) and name.startswith(head) and name.endswith(tail) and \
        len(head) + len(tail) < len(name)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(_ident, _path, st.integers(1, 99999),
                               st.sampled_from(["ok", "graph_break", "failed"]),
                               st.floats(0, 1000)), min_size=1, max_size=6),
       width=st.integers(50, 200))
@example(rows=[("f", "/work/wt-ux/corpus/gb_print.py", 5, "graph_break", 0.66),
               ("torch_dynamo_resume_in_f_at_7", "/work/wt-ux/corpus/gb_print.py", 7, "ok",
                5.06)], width=80)  # the issue's `torch_dynamo_resume_` / `in_f_at_7`
@example(rows=[("forward", "/home/someone/projects/compdiag/corpus/fail_lowering.py", 12,
                "failed", 1.0)], width=60)  # the issue's `fail_lowering.` / `py`
def test_table_cells_are_never_broken_inside_a_name(rows, width: int) -> None:
    """Issue 30 item 9: at any width a table's function names and file names are whole or
    shortened in the middle ('…'), never broken across lines (`fail_lowering.` / `py`), and
    when the width holds everything, everything is shown whole. Fails on main (a long
    function name folds onto a second line)."""
    from compdiag.views.show import _where
    from compdiag.views.table import Col, fitted_table

    cols = (Col("compile id"), Col("function", 60, flex=True, min_width=10),
            Col("where", shrink=True, min_width=20), Col("status", 90),
            Col("total s", 80, "right"))
    cells = [(f"{i}/0", name, _where(path, line), status, f"{total:.2f}")
             for i, (name, path, line, status, total) in enumerate(rows)]
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(fitted_table(width, cols, cells))
    lines = console.export_text().splitlines()
    assert all(len(line) <= width for line in lines), lines
    body = lines[2:]
    assert len(body) == len(rows), lines  # one line a row: nothing wrapped
    shown = lines[0].split()  # a column the width cannot hold is dropped, by its keep
    for line, (name, path, lineno, _, _) in zip(body, rows):
        tokens = line.split()
        assert "function" not in shown or any(_middle_of(t, name) for t in tokens), \
            (name, line)
        where = f"{Path(path).name}:{lineno}"
        assert any(t.endswith(where) and (t == where or t.startswith(("…", "/")))
                   for t in tokens), (where, line)
    roomy = sum(max(len(h), *(len(str(c)) for c in col)) for h, col in zip(
        ["compile id", "function", "where", "status", "total s"],
        zip(*[(a, n, f"{p}:{ln}", s, f"{t:.2f}") for a, (n, p, ln, s, t)
              in zip([c[0] for c in cells], rows)]))) + 3 * 4
    if roomy <= width:  # the room is used: every name and path whole
        text = "\n".join(lines)
        assert all(f" {n} " in f" {text} " for n, *_ in rows)
