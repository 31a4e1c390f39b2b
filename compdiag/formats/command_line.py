"""Every compdiag command line compdiag prints (a fix, a hint, an error's next step), built in
one place so that each runs as printed when pasted: shell-quoted with `shlex.join` (a store or
script path with a space stays one word), and `--store PATH` right after the subcommand's name
whenever the store is not the default one (else the pasted command would read another store).

formats is the leaf layer, so the store's own messages, the analyses' fixes and the views can
all call it; `tests/test_printed_commands.py` parses and runs what they print."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Mapping

# The store every subcommand reads when `--store` is not given (and COMPDIAG_STORE is unset).
DEFAULT_STORE = Path(".compdiag") / "compdiag.db"


def is_default_store(store: str | os.PathLike[str] | None) -> bool:
    """Whether a command may leave `--store` out for this store: None, or the default path
    spelled as a relative path (an absolute path or COMPDIAG_STORE's store always names it)."""
    return store is None or os.path.normpath(os.fspath(store)) == os.path.normpath(DEFAULT_STORE)


def command_line(command: str, *args: object, store: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None) -> str:
    """`[NAME=VALUE ...] compdiag COMMAND [--store STORE] ARGS...`, shell-quoted. `command` is
    the subcommand's name; ARGS are its words (a RUN, options, `--`, a script and its argv),
    each one word; `env`, environment variables the command needs, set on the same line (as a
    POSIX shell reads `NAME=VALUE cmd`), so that the pasted line runs as it was meant to."""
    words = ["compdiag", command]
    if not is_default_store(store):
        words += ["--store", os.fspath(store)]  # type: ignore[arg-type]
    words += [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    prefix = "".join(f"{name}={shlex.quote(str(value))} " for name, value in (env or {}).items())
    return prefix + shlex.join(words)
