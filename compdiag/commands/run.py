"""`compdiag run [--store DB] [--mode M] [--check-accuracy] SCRIPT [ARGS...]` and
`compdiag run -m MODULE [ARGS...]`: the program under capture, exiting with its own status."""

from __future__ import annotations

import argparse
from pathlib import Path

from compdiag.commands._common import CLIError, add_store_arg, store_path

HELP = "run a program with every compile stage captured"


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--mode", choices=["default", "reduce-overhead", "max-autotune"],
                   help="force this torch.compile mode on every compile call")
    p.add_argument("--check-accuracy", action="store_true",
                   help="also compare each compiled graph against eager")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a library module")
    p.add_argument("script", nargs="?", metavar="SCRIPT")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from compdiag.capture.runner import run_program

    if args.module:
        target = [args.module, *args.args]
    else:
        if not args.script:
            raise CLIError("run needs SCRIPT or -m MODULE")
        if not Path(args.script).exists():
            raise CLIError(f"can't open file {args.script!r}: no such file")
        target = [args.script, *args.args]
    env = {}
    if args.check_accuracy:
        env["COMPDIAG_CHECK_ACCURACY"] = "1"
    mode = None if args.mode in (None, "default") else args.mode
    code, _ = run_program(store_path(args), target, module=bool(args.module), mode=mode,
                          extra_env=env)
    return code
