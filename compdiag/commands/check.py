"""`compdiag check [--rtol R --atol A] [--junit FILE] [--require-cudagraphs] SCRIPT|RUN
[ARGS...]`: accuracy, or CUDA-graph coverage, as a CI gate (the verdicts are
compdiag/analyses/accuracy.py, the view compdiag/views/check.py). torch falls back from CUDA
graphs silently; the gate fails when any graph was skipped (pytorch/pytorch#124506,
#176611)."""

from __future__ import annotations

import argparse
from pathlib import Path

from compdiag.commands._common import (CLIError, add_script_args, add_store_arg, check_program,
                                       emit_json, options_after_run, output_file, script_argv,
                                       store_path)

HELP = "accuracy of compiled graphs against eager (CI exit code)"
DESCRIPTION = ("Run SCRIPT with every compiled graph replayed eagerly and compared within "
               "tolerance (or re-read a RUN recorded with `compdiag run --check-accuracy`). "
               "Exit 0 when every graph matches, 1 on a mismatch, 2 when the script itself "
               "fails; --require-cudagraphs also fails on a graph CUDA graphs skipped. Options "
               "go before SCRIPT.")
EXAMPLES = (("compdiag check --junit out.xml --rtol 1e-3 test_model.py",
             "a CI gate with a JUnit report"),
            ("compdiag check 3 --json", "the verdicts of stored run 3 as JSON"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--rtol", type=float, default=None, help="relative tolerance")
    p.add_argument("--atol", type=float, default=None, help="absolute tolerance")
    p.add_argument("--junit", type=Path, default=None, metavar="FILE",
                   help="write a JUnit XML report (one test case per compiled graph)")
    p.add_argument("--require-cudagraphs", action="store_true",
                   help="fail (exit 1) when CUDA graphs skipped any compiled graph, or none ran "
                        "under CUDA graphs; the script runs as written (no accuracy re-run "
                        "unless --rtol/--atol are given)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    add_script_args(p, "SCRIPT|RUN", "the script to run and check, or a stored run id (the "
                    "latest when left out, as explain reads it)", optional=True)
    p.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from compdiag.analyses.accuracy import junit_xml, report
    from compdiag.store.reader import Reader
    from compdiag.views.check import check_document, print_check

    target = args.target or "latest"  # `compdiag check --store S`: its latest run (probes33b)
    if not Path(target).is_file():
        if target.endswith(".py"):
            raise CLIError(f"can't open file {target!r}: no such file")
        options_after_run(args)  # `compdiag check RUN --json`
    output_file(args.junit, "--junit")
    store = store_path(args)
    need_cg = bool(args.require_cudagraphs)
    accuracy = not need_cg or args.rtol is not None or args.atol is not None
    if Path(target).is_file():
        argv = script_argv(args)
        check_program(target)
        from compdiag.capture.runner import run_program

        env = {"COMPDIAG_CHECK_ACCURACY": "1"} if accuracy else {}
        if args.rtol is not None:
            env["COMPDIAG_RTOL"] = repr(args.rtol)
        if args.atol is not None:
            env["COMPDIAG_ATOL"] = repr(args.atol)
        _, run_id = run_program(store, [target, *argv], extra_env=env)
        name = Path(target).stem
    else:
        if args.rtol is not None or args.atol is not None:
            raise CLIError("--rtol/--atol apply when checking a SCRIPT (the check re-runs it); "
                           "a stored RUN keeps the tolerances it ran with")
        if not target.isdigit() and target not in ("latest", "last"):
            raise CLIError(f"{target!r} is neither a script nor a run id")
        with Reader(store) as reader:
            run_id = reader.resolve_run(target)
            if not need_cg and not reader.accuracy(run_id) and \
                    reader.run(run_id)["exit_code"] == 0:
                raise CLIError(f"run {run_id} was not recorded with --check-accuracy "
                               "(use `compdiag check SCRIPT` or `compdiag run --check-accuracy`)")
        name = f"run{run_id}"
    with Reader(store) as reader:
        rep = report(reader, run_id, require_cudagraphs=need_cg)
    if args.junit:
        args.junit.write_text(junit_xml(rep, name))
    if args.json:
        emit_json(check_document(rep))
    else:
        from rich.console import Console

        print_check(rep, Console(stderr=True))
    return rep.verdict

