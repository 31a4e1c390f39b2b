"""The `compdiag` command line (contract in DESIGN.md): the parser is built from the command
modules of compdiag/commands/, one per subcommand, and the invoked one runs. Errors the user can
act on print one line and exit 2; tracebacks are for compdiag's own bugs only."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable, Sequence

from compdiag.commands._common import EXIT_USAGE, CLIError
from compdiag.store.schema import StoreError

# (subcommand, module), in the order `compdiag --help` lists them. Each module defines HELP and
# register(parser) (see compdiag/commands/__init__.py).
COMMANDS: tuple[tuple[str, str], ...] = (
    ("run", "compdiag.commands.run"),
    ("import", "compdiag.commands.import_"),
    ("reindex", "compdiag.commands.reindex"),
    ("runs", "compdiag.commands.runs"),
    ("show", "compdiag.commands.show"),
    ("explain", "compdiag.commands.explain"),
    ("minify", "compdiag.commands.minify"),
    ("bisect", "compdiag.commands.bisect"),
    ("check", "compdiag.commands.check"),
    ("perf", "compdiag.commands.perf"),
    ("diff", "compdiag.commands.diff"),
    ("tui", "compdiag.commands.tui"),
    ("report", "compdiag.commands.report"),
)


def build_parser(commands: Sequence[tuple[str, str]] = COMMANDS) -> argparse.ArgumentParser:
    """The parser with each (name, module) of `commands` as a subcommand. A module that fails to
    import must not take the others down with it: its command then reports the fault in one
    line."""
    parser = argparse.ArgumentParser(
        prog="compdiag", description="Record and explain torch.compile: graph breaks, "
        "recompiles, failures, kernels, CUDA graphs.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in commands:
        try:
            m = importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - one broken module, not a broken CLI
            register, help_text = _broken_command(module, exc), \
                f"(unavailable: {module} failed to load)"
        else:
            register, help_text = m.register, m.HELP
        register(sub.add_parser(name, help=help_text))
    return parser


def _broken_command(module: str, exc: BaseException
                    ) -> Callable[[argparse.ArgumentParser], None]:
    def register(p: argparse.ArgumentParser) -> None:
        p.add_argument("rest", nargs=argparse.REMAINDER)

        def fail(args: argparse.Namespace) -> int:
            raise CLIError(f"this command is unavailable: {module} failed to load "
                           f"({type(exc).__name__}: {exc})")
        p.set_defaults(func=fail, unavailable=module)
    return register


def main(argv: list[str] | None = None,
         commands: Sequence[tuple[str, str]] = COMMANDS) -> int:
    """Run `compdiag ARGV`; returns the exit status. `commands` are the (name, module) pairs to
    offer (default COMMANDS). `compdiag CMD ...` imports CMD's module alone (start-up time:
    `compdiag tui` must not import every analysis first); help, no command or an unknown one
    import them all."""
    argv = list(sys.argv[1:] if argv is None else argv)
    invoked = [c for c in commands if argv and c[0] == argv[0]]
    parser = build_parser(invoked or commands)
    # `compdiag run -m MOD ARGS...`: everything after MOD belongs to the program. Only a -m
    # among run's own options counts; `compdiag run script.py -m x` passes -m to the script.
    i = _run_module_flag(argv)
    if i is not None:
        head, tail = argv[:i + 2], argv[i + 2:]
        args = _parse(parser, head)
        args.args = tail
        return _dispatch(args)
    return _dispatch(_parse(parser, argv))


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """parser.parse_args(argv), except that an unavailable command takes any options
    (`compdiag explain --store x.db` with explain's module broken reports the broken module,
    not an unknown --store)."""
    args, rest = parser.parse_known_args(argv)
    if rest and not getattr(args, "unavailable", None):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return args


def _run_module_flag(argv: list[str]) -> int | None:
    """The index of `-m` when it comes before SCRIPT in `compdiag run ...`, else None."""
    if argv[:1] != ["run"]:
        return None
    i = 1
    while i < len(argv):
        tok = argv[i]
        if tok == "-m":
            return i if i + 1 < len(argv) else None
        if tok in ("--store", "--mode"):
            i += 2
        elif tok.startswith(("--store=", "--mode=")) or tok == "--check-accuracy":
            i += 1
        else:
            return None  # SCRIPT (or an option argparse will judge)
    return None


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except (CLIError, StoreError) as exc:
        print(f"compdiag: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
