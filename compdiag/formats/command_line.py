"""Every compdiag command line compdiag prints (a fix, a hint, an error's next step), built in
one place so that each runs as printed when pasted: shell-quoted with `shlex.join` (a store or
script path with a space stays one word), and `--store PATH` right after the subcommand's name
whenever the store is not the default one (else the pasted command would read another store).

formats is the leaf layer, so the store's own messages, the analyses' fixes and the views can
all call it; `tests/test_printed_commands.py` parses and runs what they print."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Mapping

# The store every subcommand reads when `--store` is not given (and COMPDIAG_STORE is unset).
DEFAULT_STORE = Path(".compdiag") / "compdiag.db"


def is_default_store(store: str | os.PathLike[str] | None) -> bool:
    """Whether a command may leave `--store` out for this store: None, or the default path
    spelled as a relative path (an absolute path or COMPDIAG_STORE's store always names it)."""
    return store is None or os.path.normpath(os.fspath(store)) == os.path.normpath(DEFAULT_STORE)


@functools.lru_cache(maxsize=1)
def invocation() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(the words that start a compdiag command, environment it needs) as this process can be
    called again from a shell: `compdiag` where that name is on PATH and this compdiag was not
    found through PYTHONPATH; else this interpreter with `-m compdiag` (a user who ran
    `.venv/bin/python -m compdiag` without activating the venv has no `compdiag` on PATH:
    probes32a, "compdiag: command not found"), with the PYTHONPATH that found it."""
    package = Path(__file__).resolve().parents[2]  # the folder holding compdiag/
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    via = next((p for p in paths if Path(p).resolve() == package), None)
    if via is None and shutil.which("compdiag"):
        return ("compdiag",), ()
    words = (sys.executable or "python3", "-m", "compdiag")
    return words, ((("PYTHONPATH", os.environ["PYTHONPATH"]),) if via is not None else ())


def command_line(command: str, *args: object, store: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None) -> str:
    """`[NAME=VALUE ...] compdiag COMMAND [--store STORE] ARGS...`, shell-quoted. `command` is
    the subcommand's name; ARGS are its words (a RUN, options, `--`, a script and its argv),
    each one word; `env`, environment variables the command needs, set on the same line (as a
    POSIX shell reads `NAME=VALUE cmd`), so that the pasted line runs as it was meant to."""
    head, needs = invocation()
    words = [*head, command]
    if not is_default_store(store):
        words += ["--store", os.fspath(store)]  # type: ignore[arg-type]
    words += [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    prefix = "".join(f"{name}={shlex.quote(str(value))} "
                     for name, value in {**dict(needs), **(env or {})}.items())
    return prefix + shlex.join(words)
