"""`compdiag bisect [--json] [--jobs N] -- CMD...` and `compdiag bisect [RUN]`.

CMD exits 0 when good (like `git bisect run`). With RUN, the oracle is that captured run's own
failure: its argv re-run in its cwd, bad when it exits with the same status (and, when the
store recorded the exception, prints the same exception type). A run that exited 0 with an
accuracy failure recorded (`compdiag run --check-accuracy`) is re-run under the accuracy
checker (compdiag/bisect/accuracy_probe.py): bad when a compiled graph diverges from eager."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
from pathlib import Path

from compdiag.commands._common import CLIError, add_store_arg, emit_json, store_path

HELP = "find the backend, compiler subsystem and n-th application that breaks a program"
DESCRIPTION = ("Find the backend, compiler subsystem and the n-th application of a pass at "
               "fault, by re-running a command (exit 0 when good, as `git bisect run`) with "
               "parts of the compiler turned off; or re-run a captured RUN, bad when it fails "
               "as it did. compdiag's options go before --; the command follows it.")
EXAMPLES = (("compdiag bisect -- python train.py --steps 2", "bisect a command"),
            ("compdiag bisect --json 3", "re-run captured run 3 as the oracle, JSON out"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    _options(p)
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="[RUN] [-- CMD ...]",
                   help="a captured run to re-run, or the command to bisect after --")
    p.set_defaults(func=cmd_bisect)


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="probes run at once (default: the number of CPU cores, at most 8)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="kill a probe after S seconds; it counts as exit status 124 (bad)")
    p.add_argument("--no-warm", action="store_true",
                   help="start every probe in a fresh python (no forked warm interpreter)")


def _split(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    words = list(args.words or [])
    if "--" in words:
        i = words.index("--")
        head, cmd = words[:i], words[i + 1:]
        if not cmd:
            raise CLIError("bisect: no command after --")
    else:
        head, cmd = words, []
    late = argparse.ArgumentParser(prog="compdiag bisect", add_help=False)
    add_store_arg(late)
    _options(late)
    ns, rest = late.parse_known_args(head)
    for key in ("json", "jobs", "store", "no_warm", "timeout"):
        if getattr(ns, key) not in (None, False):
            setattr(args, key, getattr(ns, key))
    unknown = [w for w in rest if w.startswith("-")]
    if unknown:
        raise CLIError(f"bisect: unknown option {unknown[0]!r} (the command goes after --)")
    if len(rest) > 1:
        raise CLIError("bisect takes one RUN; put the command to bisect after --: "
                       "compdiag bisect -- python script.py")
    return (rest[0] if rest else None), cmd


def _command(cmd: list[str]) -> list[str]:
    first = cmd[0]
    if first.endswith(".py") and not os.access(first, os.X_OK):
        if not Path(first).is_file():
            raise CLIError(f"can't open file {first!r}: no such file")
        return [sys.executable, *cmd]
    if shutil.which(first) is None:
        raise CLIError(f"bisect: command not found: {first!r}")
    return cmd


def _from_run(args: argparse.Namespace, run: str | None):
    from compdiag.bisect.runner import Oracle
    from compdiag.store.reader import Reader

    with Reader(store_path(args)) as reader:
        run_id = reader.resolve_run(run)
        row = reader.run(run_id)
        all_failures = reader.failures(run_id)
    failures = [f for f in all_failures if f.get("stage") != "accuracy"]
    accuracy = [f for f in all_failures if f.get("stage") == "accuracy"]
    if row.get("source") != "run" or not row.get("argv"):
        raise CLIError(f"run {run_id} was imported, not run: there is no command to re-run "
                       "(use compdiag bisect -- CMD)")
    code = row.get("exit_code")
    cwd = Path(row.get("cwd") or ".")
    if not cwd.is_dir():
        raise CLIError(f"run {run_id} ran in {cwd}, which no longer exists")
    if not code and accuracy:
        from compdiag.bisect.accuracy_probe import MARKER
        from compdiag.bisect.warm import eligible

        if not eligible([sys.executable, *row["argv"]], cwd)[0]:
            args.no_warm = True  # the program itself may not run in a forked interpreter
        return [sys.executable, "-m", "compdiag.bisect.accuracy_probe", *row["argv"]], cwd, \
            Oracle(bad_rc=1, bad_text=MARKER), run_id
    if not code:
        raise CLIError(f"run {run_id} exited {code} and recorded no accuracy failure: no "
                       "failure to bisect (record one with compdiag run --check-accuracy, or "
                       "use compdiag bisect -- CMD)")
    exc = (failures[-1].get("exc_type") or "").rsplit(".", 1)[-1] if failures else ""
    return [sys.executable, *row["argv"]], cwd, Oracle(bad_rc=int(code), bad_text=exc or None), \
        run_id


def _explained(args: argparse.Namespace, run_id: int) -> dict | None:
    """explain's first problem for the bisected run: bisect names the pass where the failure
    appears (the mechanism: aten.mul's lowering recomputed a value), explain the cause it
    found (a custom op writing an input its schema does not declare), and the report says
    both (benchmarks/probes25 custom_op_undeclared_mutation)."""
    from compdiag.analyses.explain import explain
    from compdiag.store.reader import Reader

    try:
        with Reader(store_path(args)) as reader:
            top = next((d for d in explain(reader, run_id) if d.severity == "problem"), None)
    except Exception:  # noqa: BLE001 - the report stands without it
        return None
    if top is None:
        return None
    frame = top.user_frame
    return {"kind": top.kind, "reason": top.reason,
            "filename": frame.filename if frame else None,
            "lineno": frame.lineno if frame else None}


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def cmd_bisect(args: argparse.Namespace) -> int:
    from compdiag.bisect.driver import run_bisect
    from compdiag.bisect.runner import Oracle

    run, cmd = _split(args)
    if run is not None and cmd:
        raise CLIError("give RUN or -- CMD, not both")
    if cmd:
        cmd, cwd, oracle, run_id = _command(cmd), Path.cwd(), Oracle(), None
    else:
        cmd, cwd, oracle, run_id = _from_run(args, run)
    jobs = args.jobs if args.jobs is not None else min(8, os.cpu_count() or 2)
    if jobs < 1:
        raise CLIError("--jobs must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        raise CLIError("--timeout must be positive")

    from rich.console import Console

    from compdiag.views.bisect import ProgressView, print_report

    err = Console(stderr=True, highlight=False)
    from compdiag.bisect.runner import stale_bisect_status

    stale = stale_bisect_status()
    warnings = []
    if stale is not None:
        warnings.append(f"{stale} was left by torch's CompilerBisector: until it is deleted, "
                        "every torch.compile run of yours is altered by it (pytorch issue "
                        "#143453); compdiag's probes do not read it")
        print(f"compdiag: warning: {warnings[-1]}", file=sys.stderr)
    old_term = signal.signal(signal.SIGTERM, _interrupt)  # clean up as on Ctrl-C
    try:
        with ProgressView(err) as view:
            report = run_bisect(cmd, cwd=cwd, oracle=oracle, jobs=jobs,
                                warm=not args.no_warm, timeout_s=args.timeout,
                                listener=view.event)
    finally:
        signal.signal(signal.SIGTERM, old_term)
    doc = report.document()
    doc["warnings"] = warnings
    if run_id is not None:
        doc["run"] = run_id
        cause = _explained(args, run_id)
        if cause:
            doc["explained"] = cause
    if args.json:
        emit_json(doc)
    else:
        print_report(report, doc, Console(highlight=False))
    if report.error:
        print(f"compdiag: bisect: {report.error}", file=sys.stderr)
        return 1
    return 0 if report.result is not None else 1
