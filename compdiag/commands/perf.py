"""`compdiag perf [--modes default,reduce-overhead,max-autotune] SCRIPT [ARGS...]` and
`compdiag perf RUN`: eager vs compiled per graph, what limits the speed-up, which mode wins.

SCRIPT runs under capture with the timer on (capture/perf_timing.py), once per mode, each in
its own child process with its own fresh TORCHINDUCTOR_CACHE_DIR (a cache hit would hide the
compile time). With --repeat N each mode runs N times: the first compiles cold, the others reuse
its cache and add their own timings, because a speed-up measured inside one process cannot show
how much another process of the same program differs (on an H200, about one resnet50 process
in ten ran 20% slower throughout, with or without compdiag). RUN re-reads a run recorded that
way. The report is printed (rich table, bar
chart) or emitted as one JSON document (`--json`), and filed in the store under each run it
covers (table perf_reports) for the TUI."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from compdiag.commands._common import CLIError, add_store_arg, store_path

HELP = "eager vs compiled time per graph, what limits the speed-up, which compile mode wins"
MODES = ("default", "reduce-overhead", "max-autotune")


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("--modes", default=None, metavar="M1,M2",
                   help="compare these torch.compile modes (comma-separated; each runs the "
                        "SCRIPT in its own process): " + ", ".join(MODES))
    p.add_argument("--budget", type=float, default=None, metavar="S",
                   help="seconds of timing per compiled graph (default 1.5)")
    p.add_argument("--reps", type=int, default=None, metavar="N",
                   help="at least N paired samples per graph (default 7)")
    p.add_argument("--repeat", type=int, default=None, metavar="N",
                   help="run each mode in N processes (the first compiles, the others reuse its "
                        "cache) so the speed-up's range covers the noise between processes")
    p.add_argument("--keep-caches", default=None, metavar="DIR",
                   help="keep each mode's Inductor cache in DIR/inductor-MODE (else a temporary "
                        "directory, removed after the run); DIR must be new or empty")
    p.add_argument("target", metavar="SCRIPT|RUN")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    p.set_defaults(func=cmd_perf)


def _modes(text: str | None) -> list[str] | None:
    if text is None:
        return None
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CLIError(f"--modes takes a comma-separated list of {', '.join(MODES)}"
                       + (f"; not {bad[0]!r}" if bad else ""))
    return list(dict.fromkeys(modes))


def cmd_perf(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.store.schema import StoreError

    store = store_path(args)
    modes = _modes(args.modes)
    if args.budget is not None and not (0 < args.budget <= 600):
        raise CLIError("--budget must be between 0 and 600 seconds")
    if args.reps is not None and not (5 <= args.reps <= 10_000):
        raise CLIError("--reps must be between 5 and 10000 (fewer samples give no speed-up)")
    target = args.target
    is_script = Path(target).is_file()
    if not is_script:
        if target.endswith(".py"):
            raise CLIError(f"can't open file {target!r}: no such file")
        if not target.isdigit() and target not in ("latest", "last"):
            raise CLIError(f"{target!r} is neither a script nor a run id")
        if modes:
            raise CLIError("--modes runs a SCRIPT under each mode; a stored RUN has one mode")
        if args.args:
            raise CLIError("ARGS go with a SCRIPT, not with a stored RUN")
        if args.keep_caches:
            raise CLIError("--keep-caches goes with a SCRIPT: a stored RUN compiles nothing")
        if args.repeat is not None:
            raise CLIError("--repeat runs a SCRIPT again; a stored RUN is re-read as recorded")
    if args.repeat is not None and not (1 <= args.repeat <= 20):
        raise CLIError("--repeat must be between 1 and 20 processes per mode")
    if args.keep_caches and is_script:
        keep = Path(args.keep_caches)
        if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
            raise CLIError(f"--keep-caches {keep}: not a new or empty directory (a warm cache "
                           "would hide the compile time)")
    exit_code = 0
    if is_script:
        runs = _run_modes(store, [target, *args.args], modes, args)
        exit_code = next((c for _, _, c in runs if c), 0)
    else:
        with Reader(store) as reader:
            run_id = reader.resolve_run(target)
            if not reader.perf_graphs(run_id):
                raise CLIError(f"run {run_id} has no perf timings (record one with "
                               "`compdiag perf SCRIPT`)")
            mode = ((reader.perf_run(run_id) or {}).get("mode")
                    or reader.run(run_id).get("mode") or "default")
            runs = [(mode, run_id, 0)]
            # A run recorded in a mode comparison is shown with the runs it was compared to.
            filed = reader.perf_report(run_id) or {}
            if filed.get("modes") or any(r.get("repeats") for r in filed.get("runs") or []):
                others = [(r.get("mode"), x, 0) for r in filed.get("runs") or []
                          for x in [r.get("run")] + [q.get("run") for q in r.get("repeats") or []]]
                if all(isinstance(r, int) and reader.perf_graphs(r) for _, r, _ in others):
                    runs = others
    compare = len({mode for mode, _, _ in runs}) > 1 or (modes is not None and len(modes) > 1)
    doc = build_document(store, runs, compare=compare)
    try:
        _file(store, doc)
    except (StoreError, OSError, sqlite3.Error) as exc:  # a read-only store still reports
        print(f"compdiag: warning: the report was not filed in the store ({exc})",
              file=sys.stderr)
    if args.json:
        json.dump(doc, sys.stdout, default=repr)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        from compdiag.views.perf import print_document

        console = Console()
        if not console.is_terminal:
            console = Console(width=120)  # piped: no terminal width to fit, keep rows whole
        print_document(doc, console)
    return exit_code


def _run_modes(store: Path, target: list[str], modes: list[str] | None,
               args: argparse.Namespace) -> list[tuple[str, int, int]]:
    from compdiag.capture.runner import run_program

    runs = []
    keep = getattr(args, "keep_caches", None)
    tmp = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="compdiag-perf-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        repeat = getattr(args, "repeat", None) or 1
        for mode in modes or [None]:
            # The first process compiles into a fresh cache (its compile time is the mode's);
            # the repeats find the same kernels there and only add timings.
            env = {"COMPDIAG_PERF": "1",
                   "TORCHINDUCTOR_CACHE_DIR": str(tmp / f"inductor-{mode or 'own'}")}
            if args.budget is not None:
                env["COMPDIAG_PERF_BUDGET_S"] = repr(args.budget)
            if args.reps is not None:
                env["COMPDIAG_PERF_MIN_REPS"] = str(args.reps)
            for i in range(repeat):
                if not args.json:
                    print(f"compdiag perf: running {' '.join(target)} with mode "
                          f"{mode or 'as written'}"
                          + (f" (process {i + 1}/{repeat}, warm cache)" if i else ""),
                          file=sys.stderr)
                with _stdout_to_stderr(bool(args.json)):
                    code, run_id = run_program(store, target,
                                               mode=None if mode in (None, "default") else mode,
                                               extra_env=env, quiet=bool(args.json))
                runs.append((mode or "default", run_id, code))
                if code:
                    break  # a failing program is not run again
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return runs


@contextlib.contextmanager
def _stdout_to_stderr(on: bool) -> Iterator[None]:
    """With --json, stdout carries one JSON document: the program's own stdout (the child
    inherits file descriptor 1) goes to stderr meanwhile."""
    if not on:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def build_document(store: Path, runs: list[tuple[str, int, int]], *, compare: bool
                   ) -> dict[str, Any]:
    """One report per mode, from its first run; a mode's later runs (--repeat) are kept under
    its `repeats` as their whole-run speed-ups."""
    from compdiag.analyses.perf import compare_modes, report, repeat_summary
    from compdiag.store.reader import Reader
    from compdiag.store.schema import SCHEMA_VERSION

    reports: dict[str, dict[str, Any]] = {}
    with Reader(store) as reader:
        for mode, run_id, _ in runs:
            if mode in reports:
                reports[mode].setdefault("repeats", []).append(repeat_summary(reader, run_id))
                continue
            rep = report(reader, run_id)
            rep["mode"] = mode
            cg = reader.cudagraphs(run_id)
            rep["cudagraphs"] = {"applied": sum(1 for c in cg if c.get("applied")),
                                 "skipped": sum(1 for c in cg if not c.get("applied"))}
            reports[mode] = rep
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "store": str(store),
                           "created_at": time.time(), "runs": list(reports.values())}
    doc["modes"] = compare_modes(reports) if compare else None
    return doc


def _file(store: Path, doc: dict[str, Any]) -> None:
    """Keep the report in the store under every run it covers (the TUI reads it there)."""
    from compdiag.store.writer import Writer

    document = json.dumps(doc, default=repr)
    w = Writer(store)
    try:
        for rep in doc["runs"]:
            for run in [rep["run"]] + [q["run"] for q in rep.get("repeats") or []]:
                w.upsert("perf_reports", run_id=run, created_at=doc["created_at"],
                         document=document)
        w.flush()
    finally:
        w.close()

