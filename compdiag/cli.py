"""The `compdiag` command line (the commands and their `--json` keys: docs/json.md): the parser
is built from the command modules of compdiag/commands/, one per subcommand, and the invoked one
runs. Errors the user can act on print one line and exit 2; tracebacks are for compdiag's own
bugs only. Help is formatted by rich-argparse and shell completion comes from shtab, both
imported only when asked for (start-up time)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Callable, Sequence

from compdiag.commands._common import EXIT_USAGE, CLIError, document_stdout
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
    ("export", "compdiag.commands.export"),
    ("tui", "compdiag.commands.tui"),
    ("report", "compdiag.commands.report"),
)


def build_parser(commands: Sequence[tuple[str, str]] = COMMANDS) -> argparse.ArgumentParser:
    """The parser with each (name, module) of `commands` as a subcommand. A module that fails to
    import must not take the others down with it: its command then reports the fault in one
    line."""
    parser = argparse.ArgumentParser(
        prog="compdiag", formatter_class=_formatter,
        description=_wrap("Record and explain torch.compile: graph breaks, recompiles, failures, "
        "kernels, CUDA graphs. `compdiag run` records a program into one SQLite store; the "
        "other commands read it. Options go before SCRIPT: what follows SCRIPT is the "
        "script's own argv. The --json keys of every command: docs/json.md."),
        epilog=_epilog(("compdiag run train.py --epochs 1", "record a program (its argv after "
                        "SCRIPT)"),
                       ("compdiag explain", "what went wrong in the latest run, and the fix")))
    parser.add_argument("--version", action=_Version, help="compdiag's version and the torch "
                        "version it sees, then exit")
    _add_completion(parser)
    # prog given: argparse would otherwise format a usage line to find it, which imports
    # rich (0.1 s of every command's start, `compdiag import` of a small log's half)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                prog=parser.prog,
                                help="what to do (compdiag COMMAND --help for its options)")
    for name, module in commands:
        try:
            m = importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - one broken module, not a broken CLI
            register, help_text = _broken_command(module, exc), \
                f"(unavailable: {module} failed to load)"
            description, examples = help_text, ()
        else:
            register, help_text = m.register, m.HELP
            description = getattr(m, "DESCRIPTION", None) or help_text
            examples = getattr(m, "EXAMPLES", ())
        register(sub.add_parser(name, help=help_text, description=_wrap(description),
                                epilog=_epilog(*examples), formatter_class=_formatter))
    return parser


def _formatter(prog: str) -> argparse.HelpFormatter:
    """rich-argparse's formatter, imported only when help is printed."""
    try:
        from rich_argparse import RawDescriptionRichHelpFormatter
    except ImportError:  # pragma: no cover - a broken install still gets plain help
        return argparse.RawDescriptionHelpFormatter(prog)
    return RawDescriptionRichHelpFormatter(prog)


def _wrap(text: str) -> str:
    """A description's paragraph wrapped to the terminal (the raw formatter keeps the
    examples' lines as written, so it wraps nothing itself)."""
    import shutil
    import textwrap

    width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 100) - 2)
    return textwrap.fill(text, width=width)


def _epilog(*examples: tuple[str, str]) -> str | None:
    """The examples under a command's help: `$ command` lines, each with what it does."""
    if not examples:
        return None
    return "examples:\n" + "\n".join(f"  $ {cmd}\n      {what}" for cmd, what in examples)


def version_text() -> str:
    """`compdiag X.Y.Z (torch A.B.C)`, without importing torch (its metadata only)."""
    from importlib import metadata

    from compdiag import __version__

    try:
        ours = metadata.version("compdiag")
    except metadata.PackageNotFoundError:
        ours = __version__
    try:
        torch = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch = "not installed"
    return f"compdiag {ours} (torch {torch}, python {sys.version.split()[0]})"


class _Version(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS,
                         help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def _add_completion(parser: argparse.ArgumentParser) -> None:
    """`compdiag --print-completion bash|zsh|tcsh`: the shell completion script, written by
    shtab from this very parser (imported only then)."""
    parser.add_argument("--print-completion", action=_Completion, choices=("bash", "zsh", "tcsh"),
                        metavar="SHELL", help="print a shell completion script for SHELL "
                        "(bash, zsh or tcsh) and exit; install: compdiag --print-completion "
                        "bash > ~/.local/share/bash-completion/completions/compdiag")


class _Completion(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        import shtab

        print(shtab.complete(parser, shell=str(values)))
        parser.exit()


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
    # among run's own options counts (`compdiag run script.py -m x` is refused by run, as any
    # of its options after SCRIPT is, unless a -- comes first).
    i = _run_module_flag(argv)
    if i is not None:
        head, tail = argv[:i + 2], argv[i + 2:]
        args = _parse(parser, head)
        args.args = tail
        return _dispatch(args)
    return _dispatch(_keep_dashdash(_parse(parser, argv), argv))


def _keep_dashdash(args: argparse.Namespace, argv: list[str]) -> argparse.Namespace:
    """argparse drops the `--` before a REMAINDER on some Pythons; SCRIPT's argv keeps it, so
    that the command can tell `s.py -- --json` (the script's) from `s.py --json` (refused)."""
    rest = getattr(args, "args", None)
    if isinstance(rest, list) and hasattr(args, "script_parser") and rest[:1] != ["--"]:
        cut = len(argv) - len(rest)
        if argv[cut - 1:cut] == ["--"] and argv[cut:] == rest:
            args.args = ["--", *rest]
    return args


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
        with document_stdout(getattr(args, "json", False) is True):
            return int(args.func(args) or 0)
    except (CLIError, StoreError) as exc:
        print(f"compdiag: error: {exc}", file=sys.stderr)
        return getattr(exc, "code", EXIT_USAGE)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
