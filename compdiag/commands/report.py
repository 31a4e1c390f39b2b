"""`compdiag report [RUN] [-o compdiag-report-RUN.zip]`: one archive to attach to a PyTorch
issue (the bundle is compdiag/report/bundle.py, report.md's text compdiag/views/report.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compdiag.commands._common import CLIError, add_job_arg, add_store_arg, output_file, \
    store_path

HELP = "one zip for a PyTorch issue: diagnoses, env, minified repro, graphs, trace log"
DESCRIPTION = ("Bundle one run into a zip to attach to a PyTorch issue: report.md (the top "
               "diagnoses and what the archive holds), explain's JSON, env.json (collect_env and "
               "the run's non-default config), a minified repro.py, the diagnosed graphs and "
               "code, and the run's records as a TORCH_TRACE log, under 5 MB; with --job, "
               "every rank of a torchrun job (each rank's log, no repro). Read report.md "
               "before you share it.")
EXAMPLES = (("compdiag report 3 --no-minify -o issue.zip", "run 3, no minifier run"),
            ("compdiag report --job", "every rank of the latest torchrun job, to "
                                      "./compdiag-report-JOB.zip"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    add_job_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="FILE.zip",
                   help="where to write it (default ./compdiag-report-RUN.zip)")
    p.add_argument("--no-minify", action="store_true",
                   help="do not run the minifier (a failing run then has no repro.py)")
    p.add_argument("--repro", type=Path, default=None, metavar="REPRO",
                   help="bundle this repro (from an earlier `compdiag minify`) instead")
    p.add_argument("--minify-timeout", type=float, default=None, metavar="S",
                   help="give up minifying after S seconds (default 300)")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from compdiag.report.bundle import MINIFY_TIMEOUT, ReportError, build

    timeout = MINIFY_TIMEOUT if args.minify_timeout is None else args.minify_timeout
    if timeout <= 0:
        raise CLIError("--minify-timeout must be positive")
    if args.repro is not None and not args.repro.is_file():
        raise CLIError(f"{args.repro}: no such repro file")
    output_file(args.output, "-o")
    if args.job is not None:
        return _report_job(args)
    try:
        b = build(store_path(args), args.run, args.output, minify=not args.no_minify,
                  repro=args.repro, minify_timeout=timeout,
                  progress=lambda s: print(f"compdiag: {s} ...", file=sys.stderr, flush=True))
    except ReportError as exc:
        raise CLIError(str(exc)) from None
    names = ", ".join(m.name for m in b.members if "/" not in m.name)
    folders = sorted({m.name.split("/")[0] + "/" for m in b.members if "/" in m.name})
    print(f"compdiag: wrote {b.path} ({b.size / 1e6:.2f} MB, run {b.run_id}): "
          f"{names}{', ' if folders else ''}{', '.join(folders)}", file=sys.stderr)
    if b.repro_note:
        print(f"compdiag: {b.repro_note}", file=sys.stderr)
    for note in b.left_out:
        print(f"compdiag: left out {note}", file=sys.stderr)
    print("compdiag: read its report.md before you share it: it lists every file.",
          file=sys.stderr)
    return 0


def _report_job(args: argparse.Namespace) -> int:
    """`compdiag report --job [ID]`: every rank of a torchrun job (report/job_bundle.py)."""
    from compdiag.report.bundle import ReportError
    from compdiag.report.job_bundle import build_job

    if args.run is not None or args.repro is not None:
        raise CLIError("--job reports every rank of a job: give no RUN and no --repro (for "
                       "one rank's report and repro, `compdiag report RUN`)")
    try:
        b = build_job(store_path(args), args.job, args.output,
                      progress=lambda s: print(f"compdiag: {s} ...", file=sys.stderr,
                                               flush=True))
    except ReportError as exc:
        raise CLIError(str(exc)) from None
    print(f"compdiag: wrote {b.path} ({b.size / 1e6:.2f} MB, "
          f"{len([m for m in b.members if m.name.startswith('ranks/')])} ranks)", file=sys.stderr)
    for note in b.left_out:
        print(f"compdiag: left out {note}", file=sys.stderr)
    print("compdiag: read its report.md before you share it: it lists every file.",
          file=sys.stderr)
    return 0
