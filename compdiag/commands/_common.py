"""What every command shares: the `--store DB` argument and its default, SCRIPT and its argv,
one JSON document on stdout, and CLIError, the one-line error the cli prints before exiting 2
(or the status plain python would give)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator, TextIO

from compdiag.store.schema import default_store_path

EXIT_USAGE = 2


class CLIError(Exception):
    """A one-line error for the user; `code` is the exit status (2, or what plain python exits
    with for the same mistake: 1 for a syntax error or a missing module)."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


LATE_OPTIONS = "put compdiag's options before SCRIPT, or use -- to pass them to the script"


def add_script_args(p: argparse.ArgumentParser, metavar: str = "SCRIPT",
                    help: str = "the script to run", *, optional: bool = False) -> None:
    """SCRIPT (or RUN) and the script's own argv after it, as with `coverage run`
    (`optional`: SCRIPT may be missing, as with `run -m MODULE`)."""
    p.add_argument("target", metavar=metavar, help=help, nargs="?" if optional else None)
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                   help="the script's own arguments (a first -- is dropped: what follows "
                        "goes to the script as it is)")
    p.set_defaults(script_parser=p)


def script_argv(args: argparse.Namespace, after: str = "SCRIPT") -> list[str]:
    """The script's argv after SCRIPT: a leading `--` dropped; refused in one line when it
    holds an option of this subcommand and no `--` separates them (`compdiag check s.py
    --junit x.xml` would otherwise hand --junit to the script and write no x.xml)."""
    words = list(args.args)
    if words[:1] == ["--"]:
        return words[1:]
    late = late_option(args.script_parser, words)
    if late is not None:
        raise CLIError(f"{late} after {after} would go to the script: {LATE_OPTIONS}")
    return words


def check_program(target: str, *, module: bool = False) -> None:
    """Refuse in one line, before any run is recorded or torch imported, a program that would
    not start (missing file, syntax error, missing -m module), with python's exit status."""
    from compdiag.capture.preflight import WontStart, check_module, check_script

    try:
        check_module(target) if module else check_script(target)
    except WontStart as exc:
        if exc.python_says:  # as plain python prints it (file, line, caret), then our line
            sys.stderr.write(exc.python_says)
        raise CLIError(str(exc), code=exc.code) from None


def late_option(parser: argparse.ArgumentParser, words: list[str]) -> str | None:
    """The first of `words` (before any `--`) that is one of `parser`'s own options."""
    options = set(parser._option_string_actions)
    for w in words:
        if w == "--":
            return None
        if w in options or (w.startswith("--") and w.split("=", 1)[0] in options):
            return w.split("=", 1)[0]
    return None


def options_after_run(args: argparse.Namespace) -> None:
    """`compdiag perf RUN --json`: with a stored RUN there is no script to own the words after
    it, so they are this subcommand's options (parsed into `args`; anything else is refused)."""
    words = list(args.args)
    if not words:
        return
    late = argparse.ArgumentParser(prog=args.script_parser.prog, add_help=False)
    defaults = {}
    for action in args.script_parser._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            late._add_action(action)
            defaults[action.dest] = action.default
    ns, rest = late.parse_known_args(words[1:] if words[0] == "--" else words)
    if rest:
        raise CLIError(f"unrecognized arguments after RUN: {' '.join(rest)} (ARGS go with a "
                       "SCRIPT, not with a stored RUN)")
    for key, value in vars(ns).items():
        if value != defaults.get(key):
            setattr(args, key, value)
    args.args = []


def output_file(path: Path | None, option: str) -> None:
    """A file a command will write (-o, --junit, --perfetto), refused in one line before any
    work when its folder does not exist (a typo would otherwise create a folder silently) or
    when it names a folder."""
    if path is None:
        return
    if not path.parent.is_dir():
        raise CLIError(f"{option} {path}: there is no folder {path.parent} (create it first)")
    if path.is_dir():
        raise CLIError(f"{option} {path} is a folder: give the file's name")


def add_store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, default=None, metavar="DB",
                   help="the SQLite log store (default ./.compdiag/compdiag.db, or "
                        "$COMPDIAG_STORE)")


def add_job_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--job", nargs="?", const="latest", default=None, metavar="ID",
                   help="every rank of a torchrun job (a job id or one of its run ids; "
                        "default: the latest job)")


def store_path(args: argparse.Namespace) -> Path:
    return args.store if args.store is not None else default_store_path()


_document: TextIO | None = None  # stdout itself while document_stdout() holds it


@contextlib.contextmanager
def document_stdout(on: bool) -> Iterator[None]:
    """While a `--json` command runs, file descriptor 1 is stderr: whatever else writes to
    stdout (the script it runs, which inherits descriptor 1; torch or a library printing in
    this process) goes to stderr, and stdout carries emit_json's one document alone (DESIGN:
    `check --json SCRIPT`, `perf --json SCRIPT`, ...). A sys.stdout that is not descriptor 1
    (a test's capture) is left as it is."""
    global _document
    try:
        real = on and _document is None and sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):
        real = False
    if not real:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    _document = open(saved, "w", encoding="utf-8", closefd=False)
    os.dup2(2, 1)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        with contextlib.suppress(OSError, ValueError):
            _document.close()  # flushes; the descriptor stays open (closefd=False)
        _document = None
        os.dup2(saved, 1)
        os.close(saved)


def emit_json(doc: dict[str, Any]) -> None:
    out = _document or sys.stdout
    json.dump(doc, out, default=repr)
    out.write("\n")
    out.flush()
