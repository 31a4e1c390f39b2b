"""Every command line compdiag prints runs as printed (issue 35, section 3).

The command lines come from what compdiag prints: explain's fixes (hand-built stores in a
folder whose name has a space, fed through the Ingestor as a run's records are, and the
session store's real kernel-compile failure), `compdiag perf RUN` on the TUI's demo store, the
store's own error messages (a schema-1 store's reindex, a missing run), the commands' --help
examples, and every `compdiag ...` in backticks or after a `$ ` prompt in README.md and docs/.
Each is split with shlex and parsed with compdiag's own parser (compdiag/cli.py, plus bisect's
RUN-or-CMD rule). A printed one that reads a store (show, explain, runs, diff, export, check
RUN, reindex) then runs, in-process, against the store it names, and must exit 0; one that
runs a script or re-runs a RUN (run, check/perf SCRIPT, bisect, minify, perf RUN, report) must
name a RUN that is in its store and a SCRIPT that exists. The docs' commands name their own
example stores, so they are parsed only (tests/test_docs_examples.py runs the examples).

On main before compdiag/formats/command_line.py this caught (and `compdiag perf --try SCRIPT`,
with SCRIPT a placeholder, in the TF32 and missed-epilogue fixes): a failure's bisect fix
`compdiag bisect --store S RUN -- python SCRIPT`, which bisect refuses ("give RUN or -- CMD,
not both"); accuracy fixes without `--store` (their RUN looked up in ./.compdiag/compdiag.db,
where there is none); a store path with a space printed unquoted (`--store /tmp/my store/s.db`
splits into two words: "unrecognized arguments")."""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from cdtest import REPO
from compdiag import cli
from compdiag.commands import bisect as bisect_cmd
from compdiag.commands._common import store_path
from compdiag.store.reader import Reader
from compdiag.store.schema import StoreError, connect
from compdiag.views.report import report_markdown
from test_explain import TORCH_FILE, Store

# A command line in backticks, or after a `$ ` prompt (a shell comment or pipe ends it),
# with any `NAME=VALUE` environment assignments it starts with (kept: they are the command's).
_ENV = r"(?:[A-Za-z_]\w*=\S+ )*"
_TICKED = re.compile(r"`(%scompdiag [a-z][^`\n]*)`" % _ENV)
_PROMPT = re.compile(r"^\s*\$ (%scompdiag [a-z][^|#\n]*)" % _ENV, re.M)
# Commands that only read a store: run as printed. (export writes OUT.json, into a temp cwd.)
READ_ONLY = {"show", "explain", "runs", "diff", "export"}


def command_lines(text: str) -> list[str]:
    """Every compdiag command line in `text` (backticked or after a `$ ` prompt), in order."""
    return [m.strip() for m in _TICKED.findall(text) + _PROMPT.findall(text)]


def strings_in(doc: object) -> list[str]:
    """Every string in a JSON document (a diagnosis's fix, explanation, reason, ...)."""
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in strings_in(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in strings_in(v)]
    return []


def parse(line: str) -> argparse.Namespace:
    """`line` split as a shell splits it and parsed by compdiag's own parser; a usage error
    fails the test with the line. Leading `NAME=VALUE` words are the shell's environment
    assignments (each must be one: a name, `=`, a value)."""
    words = without_env(shlex.split(line, comments=True))
    assert words[:1] == ["compdiag"] and len(words) > 1, line
    parser = cli.build_parser([c for c in cli.COMMANDS if c[0] == words[1]])
    try:
        args = cli._keep_dashdash(cli._parse(parser, words[1:]), words[1:])
    except SystemExit:
        pytest.fail(f"compdiag's parser refuses a printed command: {line}")
    if args.command == "bisect":
        try:
            run, cmd = bisect_cmd._split(args)
        except Exception as exc:  # noqa: BLE001 - CLIError: the line is refused
            pytest.fail(f"bisect refuses {line}: {exc}")
        assert not (run is not None and cmd), f"bisect refuses {line}: give RUN or -- CMD, " \
                                              "not both"
        args.bisect_run, args.bisect_cmd = run, cmd
    return args


def without_env(words: list[str]) -> list[str]:
    """A command's words after the environment assignments it starts with."""
    while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
        words = words[1:]
    return words


def _run_of(args: argparse.Namespace, run: str | None, line: str) -> dict:
    """The stored run a command names (it must be in the store the command names)."""
    try:
        with Reader(store_path(args)) as r:
            return r.run(r.resolve_run(run))
    except StoreError as exc:
        pytest.fail(f"{line}: {exc}")


def check_printed(line: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parse `line`, then run it (a read command) or check the RUN and SCRIPT it names."""
    args = parse(line)
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("COMPDIAG_STORE", raising=False)
    words = without_env(shlex.split(line))
    if args.command in READ_ONLY or args.command == "reindex" or (
            args.command == "check" and not Path(args.target).is_file()):
        assert cli.main(words[1:]) == 0, f"a printed command failed: {line}"
    elif args.command == "bisect":
        if args.bisect_cmd:
            script = next((w for w in args.bisect_cmd if w.endswith(".py")), None)
            assert script and Path(script).is_file(), f"{line}: no script {script}"
        else:
            run = _run_of(args, args.bisect_run, line)
            # (an imported log's argv is the log's path: nothing `bisect RUN` can re-run)
            assert run.get("source") == "run" and run.get("argv") and \
                Path(run["cwd"], run["argv"][0]).is_file(), line
    elif args.command in ("minify", "report", "perf", "check") and not (
            getattr(args, "target", None) and Path(args.target).is_file()):
        run = _run_of(args, getattr(args, "run", None) or getattr(args, "target", None), line)
        if args.command == "perf":  # `perf RUN` re-reads timings: the run must have some
            # (probes31: a plain run's `compdiag perf --store S 1` exited 2)
            with Reader(store_path(args)) as r:
                assert r.perf_graphs(run["id"]), f"{line}: the run has no perf timings"
    elif args.command in ("run", "check", "perf"):
        assert Path(args.target).is_file(), f"{line}: no script {args.target}"
    else:
        pytest.fail(f"no rule for a printed `compdiag {args.command}`: {line}")


# -- what explain prints, from stores in a folder with a space in its name ---------------------
def _crash(root: Path) -> Store:
    s = Store(root, exit_code=1)
    s.compile("0/0")
    s.failure("0/0", stage="kernel_compile", exc_type="InductorError",
              message="CppCompileError: C++ compile error", filename=TORCH_FILE, lineno=10,
              traceback=f'  File "{s.user}", line 12, in <module>\n    f(x)\n'
                        f'  File "{TORCH_FILE}", line 10, in compile\n    raise\n')
    return s


def _imported(root: Path) -> Store:
    """The crash, from an imported TORCH_TRACE log (probes26: `bisect RUN` was printed for
    it, which bisect refuses: an import has no command to re-run; its argv is the log)."""
    s = _crash(root)
    log = root / "rank_0.log"
    log.write_text("")
    s.w.update_run(s.run_id, source="import", argv=[str(log)])
    return s


def _mismatch(root: Path) -> Store:
    s = Store(root)
    s.compile("0/0")
    node = {"node": "var", "op": "var", "user_frame": {"filename": str(s.user), "lineno": 9}}
    s.accuracy("0/0", [("output 0", False, 3e-3, 3e-3, {
        "verdict": "miscompile", "fp64": {"eager_rel": 2.8e-8, "compiled_rel": 1.2e-3}})],
        node=node)
    return s


def _plain_mismatch(root: Path) -> Store:
    s = Store(root)
    s.compile("0/0")
    s.accuracy("0/0", [("out0", False, 1.0, 0.5, {})])
    return s


def _tf32(root: Path) -> Store:
    """torch's TF32 warning (a GPU's): the fix measures it with `compdiag perf --try`."""
    from compdiag.analyses.diagnoses.perf_hints import TF32_MARKERS

    s = Store(root)
    s.compile("0/0")
    s.ing.event("warning", "0/0", {"category": "UserWarning"}, TF32_MARKERS[0] + ".")
    return s


def _served(root: Path) -> Store:
    """A compile served from an FX graph cache entry this store never saw made: the
    information line's fix is `TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 compdiag run ...` (before,
    the variable was named in prose and the printed `compdiag run` left it out: pasted, it
    ran warm again)."""
    s = Store(root)
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "artifact": {
        "name": "fx_graph_cache_hit", "encoding": "json"}}, json.dumps(
        {"key": "fabc123", "cache_state": "hit", "components": ["[h1] gm: cumsum"]}))
    s.compile("0/0")
    return s


def _not_compared(root: Path) -> Store:
    """A graph --check-accuracy could not compare: its information line's fix names
    `compdiag report` for this run (it said a bare `compdiag report`, the default store's)."""
    from types import SimpleNamespace

    s = Store(root)
    s.compile("0/0")
    s.ing.accuracy(SimpleNamespace(compile_id="0/0", nondeterministic=False, divergent_node=None,
                                   outputs=[], error="NotImplementedError: no float8 mul"))
    return s


def _killed_compiling(root: Path) -> Store:
    """A run a time limit's SIGTERM stopped while compile 0/0 had not finished: its fix names
    `compdiag show` for this run (it said a bare `compdiag show`, the default store's)."""
    from test_explain import _ids

    s = Store(root, exit_code=143)
    s.ing.record({**_ids("0/0"), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids("0/0"), "dynamo_start": {"stack": [
        {"line": 10, "name": "<module>", "filename": 1},
        {"line": 3, "name": "f", "filename": 1}]}}, None)
    s.ing.program_end(how="signal", exit_code=143, signal=15, stderr_tail="", fault="")
    return s


def _killed(root: Path) -> Store:
    """The out-of-memory killer's SIGKILL after every compile ended: the same `show`."""
    s = Store(root, exit_code=137)
    s.compile("0/0")
    s.ing.program_end(how="signal", exit_code=137, signal=9, stderr_tail="", fault="")
    return s


def _fallback(root: Path) -> Store:
    """A single op's fallback kernel (information since session 30): its fix names `compdiag
    perf` for this run, for when the graph's time may be going there."""
    s = Store(root)
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    return s


def _segfault(root: Path) -> Store:
    """A native crash inside compiled code (faulthandler's dump through an Inductor output
    module): its fix re-runs the script with `COMPDIAG_KEEP_GRAPHS=1 compdiag run ...` and
    then minifies the latest run (session 42 printed that line untested)."""
    from test_program_ends import EVAL_FRAME, OUTPUT_MODULE, _dump

    s = Store(root, exit_code=139)
    s.compile("0/0", lineno=3)
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail="", fault=_dump([
        (user, 20, "<module>"), (user, 12, "train"), (EVAL_FRAME, 655, "_fn"),
        (user, 3, "f"), (OUTPUT_MODULE, 80, "call")]))
    return s


@pytest.mark.parametrize("build", [_crash, _imported, _mismatch, _plain_mismatch, _tf32,
                                   _served, _not_compared, _killed_compiling, _killed,
                                   _fallback, _segfault])
@pytest.mark.parametrize("where", ["my store", ".compdiag"])
def test_explains_fixes_run_as_printed(build, where, tmp_path, monkeypatch, capsys):
    """A fix's commands (in explain's JSON, and in report.md) name this run in this store:
    with `--store` (quoted: the folder's name has a space) for any store but the default,
    without it for the default one (`.compdiag/compdiag.db` under the run's cwd, the store a
    bare `compdiag explain` reads)."""
    root = tmp_path / where
    root.mkdir()
    s = build(root)
    s.done()
    store = s.path
    if where == ".compdiag":  # the default store, read from its parent as a bare explain does
        store = root / "compdiag.db"
        s.path.rename(store)
    cwd = tmp_path if where == ".compdiag" else root
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("COMPDIAG_STORE", raising=False)
    store_args = [] if where == ".compdiag" else ["--store", str(store)]
    assert cli.main(["explain", *store_args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # report.md (compdiag report) quotes the same diagnoses (its last section names the tool
    # that made it, for the reader: not a command line for this store).
    report = report_markdown(doc, {}, repro=None, repro_note="no repro", listing=[],
                             left_out=[], bound=10**7).split("## What this archive")[0]
    lines = [c for text in strings_in(doc["diagnoses"]) + [report]
             for c in command_lines(text)]
    if build is _not_compared:
        assert any(c.startswith("compdiag report") for c in lines), lines
    if build in (_killed_compiling, _killed):
        assert any(c.startswith("compdiag show") for c in lines), lines
    if build is _fallback:
        assert any(c.startswith("compdiag perf") for c in lines), lines
    if build is _segfault:
        assert any(c.startswith("COMPDIAG_KEEP_GRAPHS=1 compdiag run ") for c in lines) and \
            any(c.startswith("compdiag minify") for c in lines), lines
    if build is _served:  # the one line that needs its environment says so on the line
        assert any(c.startswith("TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 compdiag run ")
                   for c in lines), lines
    for line in lines:
        check_printed(line, cwd, monkeypatch)


def test_a_real_failures_fixes_run_as_printed(session, fail_kernel, monkeypatch, capsys):
    """The session's tests/scripts/fail_kernel.py run (a kernel that does not compile):
    explain's text and JSON, and the commands its fixes print, against the session store."""
    assert cli.main(["explain", "--store", str(session.store), str(fail_kernel.run_id),
                     "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lines = [c for text in strings_in(doc["diagnoses"]) for c in command_lines(text)]
    assert any(" bisect " in c for c in lines), lines
    for line in lines:
        check_printed(line, session.root, monkeypatch)


def test_perf_reports_commands_run_as_printed(demo_store, tmp_path, monkeypatch, capsys):
    """`compdiag perf RUN` on the TUI's demo store (a filed report, limiters, no torch)."""
    store = tmp_path / "demo store.db"
    shutil.copy(demo_store, store)
    monkeypatch.setenv("COLUMNS", "200")
    assert cli.main(["perf", "--store", str(store), "latest"]) == 0
    assert cli.main(["explain", "--store", str(store), "--json"]) == 0
    out = capsys.readouterr().out
    for line in command_lines(out):
        check_printed(line, tmp_path, monkeypatch)


def test_store_errors_next_steps_run_as_printed(tmp_path, monkeypatch, capsys):
    """A schema-1 store's "run `compdiag reindex --store S`" and a missing run's "see
    `compdiag runs`" name the store they were about (quoted: a space in its folder)."""
    root = tmp_path / "old stores"
    root.mkdir()
    old = root / "r1.db"
    old.write_bytes(gzip.decompress((REPO / "tests/fixtures/store_schema1.db.gz").read_bytes()))
    with pytest.raises(StoreError) as exc:
        connect(old, create=False)
    (line,) = command_lines(str(exc.value))
    check_printed(line, tmp_path, monkeypatch)  # the reindex, run: the store is then current
    with Reader(old) as r, pytest.raises(StoreError) as missing:
        r.resolve_run("999")
    (line,) = command_lines(str(missing.value))
    assert "--store" in line
    check_printed(line, tmp_path, monkeypatch)


def _doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


_BLOCK_LINE = re.compile(r"^(?: {4,}|\t)(?:\$ )?(?:\w+=\S+ )*(compdiag [a-z].*)$", re.M)
# Where the shell takes over from the command: a pipe, a redirect, a comment.
_SHELL = re.compile(r"\s(?:\||\d?>|#)")


def example_command_lines(text: str) -> list[str]:
    """The compdiag command lines of a page's example blocks (indented blocks: a line that is
    a command, or one after a `$ ` prompt; a pipe, redirect or shell comment ends it). A
    command named in prose (`compdiag perf --json`) is a name, not a line to paste."""
    lines = [_SHELL.split(m, 1)[0].strip() for m in _BLOCK_LINE.findall(text)]
    # Not command lines: a usage synopsis (`[--store DB]`, `...`) or compdiag's own output
    # (`compdiag check: 1 of 1 ...`).
    return [c for c in lines if not re.search(r" \[|\.\.\.|^compdiag [a-z]+:", c)]


def test_every_documented_command_line_parses():
    """README.md's and docs/'s command lines, and each command's --help examples, are ones
    compdiag's parser takes (their stores are the docs' own: parsed, not run). A synopsis
    (`compdiag show [RUN] [--json]`) is not a command line."""
    import importlib

    lines = [(p.name, c) for p in _doc_files() for c in example_command_lines(p.read_text())]
    for _, module in cli.COMMANDS:
        for example, _what in getattr(importlib.import_module(module), "EXAMPLES", ()):
            lines.append((module, example))
    assert len(lines) > 50, len(lines)
    refused = []
    for where, line in lines:
        try:
            parse(line)
        except pytest.fail.Exception as exc:
            refused.append(f"{where}: {exc}")
    assert not refused, "\n".join(refused)


def test_a_ranks_rerun_command_relaunches_its_job(tmp_path) -> None:
    """probes26: a rank's run under `compdiag run -m torch.distributed.run ...` keeps the
    worker's own command line (`-u script.py`), and the fix printed `compdiag run --store S -u
    script.py` ("unrecognized arguments: -u"; without -u, "environment variable RANK
    expected"). A command that re-runs a rank re-runs the launch."""
    from compdiag.analyses.context import RunContext
    from compdiag.store.writer import Writer

    script = tmp_path / "train.py"
    script.write_text("print('hi')\n")
    w = Writer(tmp_path / "s.db")
    launch = ["-m", "torch.distributed.run", "--nproc-per-node", "2", str(script)]
    launcher = w.begin_run(source="run", argv=launch, cwd=str(tmp_path))
    w.update_run(launcher, job="run-1")
    rank = w.begin_run(source="run", argv=["-u", str(script)], cwd=str(tmp_path))
    w.update_run(rank, rank=1, world_size=2, local_rank=1, job="run-1")
    for r in (launcher, rank):
        w.end_run(r, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        line = RunContext(r, rank).rerun_command("--check-accuracy").strip("`")
    assert shlex.split(line)[-len(launch):] == launch, line
    assert " -u " not in line


def test_a_rerun_line_with_a_relative_script_runs_from_any_folder(tmp_path) -> None:
    """probes28a embbag_ctr_ok: the cache information's re-run line named
    `benchmarks/probes28a/embbag_ctr_ok.py` relative to the run's folder, with no `cd`, and
    pasted from another folder exited 2. A line naming a relative script now starts in the
    run's folder and names the store by its absolute path; an absolute script needs no cd."""
    from compdiag.analyses.context import RunContext
    from compdiag.store.writer import Writer

    runs = tmp_path / "my runs"
    (runs / "sub").mkdir(parents=True)
    (runs / "sub" / "prog.py").write_text("print(1)\n")
    w = Writer(tmp_path / "s.db")
    rel = w.begin_run(source="run", argv=["sub/prog.py", "--n", "2"], cwd=str(runs))
    w.end_run(rel, exit_code=0, status="done")
    absolute = w.begin_run(source="run", argv=[str(runs / "sub" / "prog.py")], cwd=str(runs))
    w.end_run(absolute, exit_code=0, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        line = RunContext(r, rel).rerun_command(env={"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"})
        plain = RunContext(r, absolute).rerun_command("--check-accuracy")
    assert line.strip("`") == (f"cd {shlex.quote(str(runs))} && "
                               "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 compdiag run --store "
                               f"{tmp_path / 's.db'} sub/prog.py --n 2")
    assert not plain.startswith("`cd ") and "--check-accuracy" in plain


_CONFIG_SET = re.compile(r"(torch(?:\.\w+)*?\.config)\.\w+ ?= ?\w")


def test_every_torch_config_a_fix_sets_is_reachable_as_printed() -> None:
    """A config line a fix prints runs after `import torch` alone, or the text imports its
    module first (probes29a scaled_gelu_fn_ok: `torch._functorch.config.X = True` pasted after
    `import torch` raised AttributeError: torch imports that module only when Dynamo does).
    Each module named is tried in a fresh interpreter."""
    import subprocess
    import sys

    import ast

    # the strings as Python joins them (a fix's text is split over source lines)
    texts = [(p, node.value) for p in (REPO / "compdiag").rglob("*.py")
             for node in ast.walk(ast.parse(p.read_text()))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    found = [(m.group(1), p, text, m.start()) for p, text in texts
             for m in _CONFIG_SET.finditer(text)]
    modules = sorted({m for m, *_ in found})
    assert "torch._functorch.config" in modules, modules
    procs = {m: subprocess.run([sys.executable, "-c", f"import torch; {m}"],
                               capture_output=True, text=True) for m in modules}
    unreachable = {m for m, p in procs.items() if p.returncode != 0}
    assert "torch._functorch.config" in unreachable  # else the test checks nothing here
    bad = [f"{p.relative_to(REPO)}: {text[:80]!r}" for m, p, text, at in found
           if m in unreachable and f"import {m}" not in text[:at]]
    assert not bad, bad


# Names in the analyses' words that are examples or stems, not torch's API.
_NOT_API = {"torch.ops.mylib.op", "torch._dynamo.mark_"}


def test_every_torch_name_the_words_use_exists_in_this_torch() -> None:
    """A fix that names torch's API names what this torch has (session 29: a fix said
    `torch._dynamo.config.error_on_graph_break`, which is a context manager,
    `torch._dynamo.error_on_graph_break(...)`, and one said `torch.ao.quantization.
    quantize_pt2e`, which torch 2.13 no longer has). Every dotted `torch.` name in the
    analyses' strings is imported, or found as an attribute of what imports."""
    import ast
    import importlib

    import torch  # noqa: F401 - the names resolve from it

    names: dict[str, Path] = {}
    for p in (REPO / "compdiag" / "analyses").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for m in re.finditer(r"\btorch(?:\.[A-Za-z_]\w*)+", node.value):
                    names.setdefault(m.group(0), p)

    def resolves(name: str) -> bool:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except Exception:  # noqa: BLE001 - not a module: an attribute of a shorter one
                continue
            for attr in parts[i:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
        return False

    assert len(names) > 50, len(names)
    bad = sorted(f"{n} ({p.relative_to(REPO)})" for n, p in names.items()
                 if n not in _NOT_API and not resolves(n))
    assert not bad, bad
