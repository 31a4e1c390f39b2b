"""`compdiag perf [--modes default,reduce-overhead,max-autotune] SCRIPT [ARGS...]` and
`compdiag perf RUN`: eager vs compiled per graph, what limits the speed-up, which mode wins.

SCRIPT is run and timed by compdiag/perf/session.py, once per mode (and --repeat N processes
per mode); RUN re-reads a run recorded that way. The report is printed (rich table, bar chart;
compdiag/views/perf.py) or emitted as one JSON document (`--json`), and filed in the store
under each run it covers (table perf_reports) for the TUI."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path
from typing import Callable

from compdiag.commands._common import (CLIError, add_script_args, add_store_arg, check_program,
                                       emit_json, options_after_run, script_argv, store_path)

HELP = "eager vs compiled time per graph, what limits the speed-up, which compile mode wins"
DESCRIPTION = ("Run SCRIPT under capture with every compiled graph timed against eager (paired "
               "samples, a 95% interval), once per --modes mode in its own process; or re-read "
               "a stored RUN. Says what limits the speed-up and which mode wins. Options go "
               "before SCRIPT; after a RUN they may follow it.")
EXAMPLES = (("compdiag perf --modes default,max-autotune bench.py --batch 32",
             "compare two modes; bench.py gets --batch 32"),
            ("compdiag perf latest --json", "the latest timed run's report as JSON"))
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
    p.add_argument("--try", dest="try_fixes", action="store_true",
                   help="re-run the program once per setting the top limiters name (TF32, a "
                        "compile mode, dynamic shapes, capture_scalar_outputs, the C++ "
                        "wrapper), each in its own process, and report each one's measured "
                        "effect beside the baseline")
    p.add_argument("--try-settings", default=None, metavar="S1,S2",
                   help="with --try (implied), only these of the settings the limiters name: "
                        "tf32, reduce-overhead, max-autotune, dynamic, capture_scalar_outputs, "
                        "cpp_wrapper")
    add_script_args(p, "SCRIPT|RUN", "the script to time, or a stored run id ('latest')")
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
    from compdiag.perf.session import (INTERRUPTED, build_document, file_report, recorded_runs,
                                       run_modes)
    from compdiag.store.reader import Reader
    from compdiag.store.schema import StoreError

    target = args.target
    is_script = Path(target).is_file()
    argv: list[str] = []
    if is_script:
        argv = script_argv(args)
        check_program(target)
    else:
        options_after_run(args)  # `compdiag perf RUN --json`
    store = store_path(args)
    modes = _modes(args.modes)
    if args.budget is not None and not (0 < args.budget <= 600):
        raise CLIError("--budget must be between 0 and 600 seconds")
    if args.reps is not None and not (5 <= args.reps <= 10_000):
        raise CLIError("--reps must be between 5 and 10000 (fewer samples give no speed-up)")
    if not is_script:
        if target.endswith(".py"):
            raise CLIError(f"can't open file {target!r}: no such file")
        if not target.isdigit() and target not in ("latest", "last"):
            raise CLIError(f"{target!r} is neither a script nor a run id")
        if modes:
            raise CLIError("--modes runs a SCRIPT under each mode; a stored RUN has one mode")
        if args.keep_caches:
            raise CLIError("--keep-caches goes with a SCRIPT: a stored RUN compiles nothing")
        if args.repeat is not None:
            raise CLIError("--repeat runs a SCRIPT again; a stored RUN is re-read as recorded")
    only = None
    if args.try_settings is not None:
        from compdiag.analyses.perf_try import SETTINGS

        only = {x.strip() for x in args.try_settings.split(",") if x.strip()}
        bad = sorted(n for n in only if n not in SETTINGS or not SETTINGS[n].outside)
        if bad or not only:
            raise CLIError("--try-settings takes a comma-separated list of " + ", ".join(
                n for n, s in SETTINGS.items() if s.outside) + (f"; not {bad[0]!r}" if bad
                                                                 else ""))
        args.try_fixes = True
    args.try_only = only
    if args.try_fixes and (modes and len(modes) > 1):
        raise CLIError("--try compares settings against one baseline: give one mode or none")
    if args.repeat is not None and not (1 <= args.repeat <= 20):
        raise CLIError("--repeat must be between 1 and 20 processes per mode")
    if args.keep_caches and is_script:
        keep = Path(args.keep_caches)
        if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
            raise CLIError(f"--keep-caches {keep}: not a new or empty directory (a warm cache "
                           "would hide the compile time)")
    exit_code = 0
    if is_script:
        from rich.console import Console

        from compdiag.views.perf import ProgressView

        with ProgressView(Console(stderr=True)) as view:
            runs = run_modes(store, [target, *argv], modes, budget=args.budget,
                             reps=args.reps, repeat=args.repeat, keep_caches=args.keep_caches,
                             json_stdout=bool(args.json),
                             announce=None if args.json else _announce([target, *argv]),
                             progress=view)
        exit_code = next((c for _, _, c in runs if c), 0)
        if runs and runs[-1][2] == INTERRUPTED:
            mode, run_id, _ = runs[-1]
            print(f"compdiag: perf interrupted (Ctrl-C) in mode {mode}, run {run_id}: "
                  "no report", file=sys.stderr)
            return INTERRUPTED
    else:
        with Reader(store) as reader:
            run_id = reader.resolve_run(target)
            if not reader.perf_graphs(run_id):
                raise CLIError(f"run {run_id} has no perf timings (record one with "
                               "`compdiag perf SCRIPT`)")
            runs = recorded_runs(reader, run_id)
    compare = len({mode for mode, _, _ in runs}) > 1 or (modes is not None and len(modes) > 1)
    doc = build_document(store, runs, compare=compare)
    if args.try_fixes:
        doc["tried"] = _try(store, doc, is_script, [target, *argv], args)
    try:
        file_report(store, doc)
    except (StoreError, OSError, sqlite3.Error) as exc:  # a read-only store still reports
        print(f"compdiag: warning: the report was not filed in the store ({exc})",
              file=sys.stderr)
    if args.json:
        emit_json(doc)
    else:
        from rich.console import Console

        from compdiag.views.perf import print_document

        console = Console()
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console = Console(width=120)  # piped: no terminal width to fit, keep rows whole
        print_document(doc, console)
    return exit_code


def _try(store: Path, doc: dict, is_script: bool, target: list[str],
         args: argparse.Namespace) -> dict:
    """The baseline is the report's first run; a stored RUN is re-run from its own argv."""
    from compdiag.perf.session import run_tries
    from compdiag.store.reader import Reader

    base = doc["runs"][0]
    if not is_script:
        with Reader(store) as reader:
            argv = reader.run(base["run"])["argv"]
        if not argv or argv[0] == "-m" or not Path(argv[0]).is_file():
            raise CLIError(f"--try re-runs run {base['run']}'s script, and {argv[:1]} is not a "
                           "file here (run it from the directory it ran in)")
        target = list(argv)
    return run_tries(store, target, base, base["run"], budget=args.budget, reps=args.reps,
                     json_stdout=bool(args.json), only=args.try_only,
                     announce=None if args.json else
                     lambda what: print(f"compdiag perf --try: running with {what}",
                                        file=sys.stderr))


def _announce(target: list[str]) -> Callable[[str | None, int, int], None]:
    """The line on stderr before each process of the session starts."""
    def announce(mode: str | None, i: int, repeat: int) -> None:
        print(f"compdiag perf: running {' '.join(target)} with mode {mode or 'as written'}"
              + (f" (process {i + 1}/{repeat}, warm cache)" if i else ""), file=sys.stderr)
    return announce
