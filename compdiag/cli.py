"""The `compdiag` command line (contract in DESIGN.md). Errors the user can act on print one
line and exit 2; tracebacks are for compdiag's own bugs only."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from compdiag.store.schema import StoreError, default_store_path

EXIT_USAGE = 2


class CLIError(Exception):
    """A one-line error for the user."""


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, default=None, metavar="DB",
                   help="the SQLite log store (default ./.compdiag/compdiag.db)")


def _store(args: argparse.Namespace) -> Path:
    return args.store if args.store is not None else default_store_path()


def _emit_json(doc: dict[str, Any]) -> None:
    json.dump(doc, sys.stdout, default=repr)
    sys.stdout.write("\n")


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
    code, _ = run_program(_store(args), target, module=bool(args.module), mode=mode,
                          extra_env=env)
    return code


def cmd_import(args: argparse.Namespace) -> int:
    from compdiag.importer.trace_log import ImportError_, import_trace

    try:
        results = import_trace(_store(args), Path(args.trace))
    except ImportError_ as exc:
        raise CLIError(str(exc)) from None
    for r in results:
        for w in r.warnings:
            print(f"compdiag: warning: {w}", file=sys.stderr)
        print(f"compdiag: imported {r.records} records from {r.path} as run {r.run_id}",
              file=sys.stderr)
    return 0 if any(r.records for r in results) else 1


def cmd_runs(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.show import print_runs, runs_document

    with Reader(_store(args)) as reader:
        if args.json:
            _emit_json(runs_document(reader))
        else:
            from rich.console import Console

            print_runs(reader, Console())
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.show import print_show, show_document

    with Reader(_store(args)) as reader:
        doc = show_document(reader, reader.resolve_run(args.run))
    if args.json:
        _emit_json(doc)
    else:
        from rich.console import Console

        print_show(doc, Console())
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from compdiag.ingest.reindex import reindex
    from compdiag.store.schema import STORE_VERSION

    path = _store(args)
    if not path.exists():
        raise CLIError(f"no store at {path} (run `compdiag run SCRIPT` or pass --store)")
    done = reindex(path)
    was = (f"upgraded from store schema {done.from_version} to {STORE_VERSION}"
           if done.from_version != STORE_VERSION else f"store schema {STORE_VERSION}")
    print(f"compdiag: reindexed {done.path} ({was}): facts re-derived from {done.records} raw "
          f"records of {done.runs} run(s)", file=sys.stderr)
    return 0


def build_parser(extras: list[tuple[str, Callable[[argparse.ArgumentParser], None], str | None]]
                 | None = None) -> argparse.ArgumentParser:
    """The parser with the core commands and `extras` (name, register, help); by default every
    extra command `_load_extras` registered."""
    parser = argparse.ArgumentParser(
        prog="compdiag", description="Record and explain torch.compile: graph breaks, "
        "recompiles, failures, kernels, CUDA graphs.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("run", help="run a program with every compile stage captured")
    _store_arg(p)
    p.add_argument("--mode", choices=["default", "reduce-overhead", "max-autotune"],
                   help="force this torch.compile mode on every compile call")
    p.add_argument("--check-accuracy", action="store_true",
                   help="also compare each compiled graph against eager")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a library module")
    p.add_argument("script", nargs="?", metavar="SCRIPT")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("import", help="import a TORCH_TRACE log (file or directory)")
    _store_arg(p)
    p.add_argument("trace", metavar="TRACE_LOG_OR_DIR")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("runs", help="list the runs in the store")
    _store_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="stages, graphs, breaks, recompiles, kernels of a run")
    _store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("reindex", help="re-derive a store's facts from its raw records "
                       "(upgrades a store an older compdiag wrote)")
    _store_arg(p)
    p.set_defaults(func=cmd_reindex)

    if extras is None:
        extras = [(name, register, _EXTRA_HELP.get(name)) for name, register in _EXTRA_COMMANDS]
    for name, register, help_text in extras:
        register(sub.add_parser(name, help=help_text))
    return parser


# Later subcommands (explain, minify, ...) register here without the core knowing them.
_EXTRA_COMMANDS: list[tuple[str, Callable[[argparse.ArgumentParser], None]]] = []
_EXTRA_HELP: dict[str, str] = {}


# Each exposes COMMANDS = [(name, register(subparser), help)]; a missing one is skipped.
EXTRA_MODULES = (
    "compdiag.analyses.explain_cli",
    "compdiag.analyses.minify_cli",
    "compdiag.analyses.bisect_cli",
    "compdiag.analyses.accuracy_cli",
    "compdiag.analyses.perf_cli",
    "compdiag.analyses.diff_cli",
    "compdiag.tui_cli",
)


def _load_extras() -> None:
    """Register the analysis subcommands once. A broken analysis module must not take `run`,
    `show` or the others down with it: its command then reports the fault in one line."""
    import importlib

    if _EXTRA_COMMANDS:
        return
    for mod in EXTRA_MODULES:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                _EXTRA_BROKEN.append((mod, exc))
            continue
        except Exception as exc:  # noqa: BLE001 - one broken module, not a broken CLI
            _EXTRA_BROKEN.append((mod, exc))
            continue
        for name, register, help_text in getattr(m, "COMMANDS", []):
            _EXTRA_COMMANDS.append((name, register))
            _EXTRA_HELP[name] = help_text
    known = {name for name, _ in _EXTRA_COMMANDS}
    for mod, exc in _EXTRA_BROKEN:
        name = _command_of(mod)
        if name not in known:
            _EXTRA_COMMANDS.append((name, _broken_command(mod, exc)))
            _EXTRA_HELP[name] = f"(unavailable: {mod} failed to load)"


_EXTRA_BROKEN: list[tuple[str, BaseException]] = []


def _command_of(mod: str) -> str:
    """The subcommand a module of EXTRA_MODULES is named for (explain_cli: explain)."""
    name = mod.rsplit(".", 1)[-1].removesuffix("_cli")
    return {"accuracy": "check"}.get(name, name)


def _extras_for(command: str) -> list[tuple[str, Callable[[argparse.ArgumentParser], None],
                                         str | None]] | None:
    """The registrations of the one module named for `command`, imported alone: `compdiag tui`
    must not import every analysis first (start-up time). None when no module is named so, it
    fails to load, or it does not register `command`: then main loads them all (and a broken
    module is reported as _load_extras does)."""
    import importlib

    for mod in EXTRA_MODULES:
        if _command_of(mod) != command:
            continue
        try:
            m = importlib.import_module(mod)
        except Exception:  # noqa: BLE001 - _load_extras imports it again and reports it
            return None
        regs = [(name, register, help_text)
                for name, register, help_text in getattr(m, "COMMANDS", [])]
        return regs if any(name == command for name, _, _ in regs) else None
    return None


def _broken_command(mod: str, exc: BaseException) -> Callable[[argparse.ArgumentParser], None]:
    def register(p: argparse.ArgumentParser) -> None:
        p.add_argument("rest", nargs=argparse.REMAINDER)

        def fail(args: argparse.Namespace) -> int:
            raise CLIError(f"this command is unavailable: {mod} failed to load "
                           f"({type(exc).__name__}: {exc})")
        p.set_defaults(func=fail)
    return register


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extras = _extras_for(argv[0]) if argv and not argv[0].startswith("-") else None
    if extras is None:
        _load_extras()
    parser = build_parser(extras)
    # `compdiag run -m MOD ARGS...`: everything after MOD belongs to the program. Only a -m
    # among run's own options counts; `compdiag run script.py -m x` passes -m to the script.
    i = _run_module_flag(argv)
    if i is not None:
        head, tail = argv[:i + 2], argv[i + 2:]
        args = parser.parse_args(head)
        args.args = tail
        return _dispatch(args)
    args = parser.parse_args(argv)
    return _dispatch(args)


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
