"""`compdiag run [--store DB] [--mode M] [--check-accuracy] SCRIPT [ARGS...]` and
`compdiag run -m MODULE [ARGS...]`: the program under capture, exiting with its own status."""

from __future__ import annotations

import argparse

from compdiag.commands._common import (CLIError, add_script_args, add_store_arg, check_program,
                                       script_argv, store_path)

HELP = "run a program with every compile stage captured"
DESCRIPTION = ("Run SCRIPT (or -m MODULE) exactly as `python` would, with every torch.compile "
               "stage recorded into the store, and exit with the program's own status. "
               "compdiag's options go before SCRIPT; what follows SCRIPT is the script's argv "
               "(a first -- is dropped).")
EXAMPLES = (("compdiag run train.py --epochs 1", "record train.py, which gets --epochs 1"),
            ("compdiag run --store runs.db --mode reduce-overhead -m pkg.train -- -h",
             "a module, its own store, a forced mode; -h goes to the module"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("--mode", choices=["default", "reduce-overhead", "max-autotune"],
                   help="force this torch.compile mode on every compile call")
    p.add_argument("--check-accuracy", action="store_true",
                   help="also compare each compiled graph against eager")
    p.add_argument("-m", dest="module", metavar="MODULE",
                   help="run a library module, as python -m does (its argv follows it)")
    add_script_args(p, optional=True)
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    if args.module:
        if args.target is not None:  # `run -m MOD` takes everything after MOD (cli.py)
            args.args = [args.target, *args.args]
        argv = script_argv(args, after="MODULE")
        check_program(args.module, module=True)
        target = [args.module, *argv]
    else:
        if not args.target:
            raise CLIError("run needs SCRIPT or -m MODULE")
        argv = script_argv(args)
        check_program(args.target)
        target = [args.target, *argv]
    from compdiag.capture.runner import run_program

    env = {}
    if args.check_accuracy:
        env["COMPDIAG_CHECK_ACCURACY"] = "1"
    mode = None if args.mode in (None, "default") else args.mode
    code, _ = run_program(store_path(args), target, module=bool(args.module), mode=mode,
                          extra_env=env)
    return code
