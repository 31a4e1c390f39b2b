"""Would the program start at all? Answered before a run is recorded and before torch is
imported: a missing file, a syntax error or a missing `-m` module would otherwise cost a child
process, a torch import (seconds) and a run in the store with nothing in it.

The checks are what python itself does first (open the file, compile it; find the module's
spec) and never execute the user's code: a package's `__init__` is not imported to look for a
submodule in it."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import zipfile


class WontStart(Exception):
    """The program cannot start; `code` is the exit status plain python gives for it, and
    `python_says` what plain python prints for it (a syntax error's caret lines), if more
    than one line."""

    def __init__(self, message: str, code: int, python_says: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.python_says = python_says


def check_script(target: str) -> None:
    """python's own first steps for `python TARGET`: the file opens and compiles."""
    if not os.path.exists(target):
        module = console_script_module(target)
        if module is not None:  # `compdiag run torchrun ...`: a command, not a file
            raise WontStart(f"can't open file {target!r}: `{target}` is a command on PATH that "
                            f"runs the Python module {module}; give compdiag the module: "
                            f"`-m {module}` in its place, with the same arguments after it",
                            2)
        raise WontStart(f"can't open file {target!r}: no such file", 2)
    if os.path.isdir(target) or zipfile.is_zipfile(target):
        # a directory or zip runs its __main__.py (python looks inside, so does the child)
        if not _has_main(target):
            raise WontStart(f"can't find '__main__' module in {target!r} (the program did not "
                            "start; no run recorded)", 1)
        return
    try:
        with open(target, "rb") as f:
            source = f.read()
    except OSError as exc:
        raise WontStart(f"can't open file {target!r}: {exc.strerror or exc}", 2) from None
    try:
        compile(source, os.path.abspath(target), "exec", dont_inherit=True)
    except SyntaxError as exc:
        import traceback

        where = f"{target}:{exc.lineno}" if exc.lineno else target
        raise WontStart(f"{where}: {type(exc).__name__}: {exc.msg} (the program did not "
                        "start; no run recorded)", 1,
                        "".join(traceback.format_exception_only(type(exc), exc))) from None
    except ValueError as exc:  # null bytes in the source
        raise WontStart(f"{target}: SyntaxError: {exc} (the program did not start)", 1) from None


def console_script_module(name: str) -> str | None:
    """The module a pip console script on PATH runs (`torchrun`: torch.distributed.run), for
    a bare name that is no file here; None otherwise."""
    import re
    import shutil

    if os.sep in name or not name:
        return None
    path = shutil.which(name)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(2048).decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r"^from ([\w.]+) import \w+$", head, re.M)
    return m.group(1) if m and head.startswith("#!") and "python" in head.splitlines()[0] \
        else None


def _has_main(target: str) -> bool:
    """Whether a directory or zip archive holds the `__main__` python would run."""
    names = ("__main__.py", "__main__.pyc")
    if os.path.isdir(target):
        return any(os.path.isfile(os.path.join(target, n)) for n in names)
    try:
        with zipfile.ZipFile(target) as z:
            return any(n in z.namelist() for n in names)
    except (OSError, zipfile.BadZipFile):
        return True  # python's own open decides, in the child


def check_module(name: str, cwd: str | None = None) -> None:
    """`python -m NAME` finds NAME: the top-level name through every finder (sys.path[0] is
    the current directory, as under -m), each further part in its parent's search locations.
    A parent that computes its `__path__` at import time is given the benefit of the doubt."""
    if not name or name.startswith("."):
        raise WontStart(f"No module named {name!r} (relative module names are not supported)", 1)
    parts = name.split(".")
    saved = sys.path[0] if sys.path else None
    try:
        if sys.path:
            sys.path[0] = cwd or os.getcwd()
        else:
            sys.path.insert(0, cwd or os.getcwd())
        loaded = sys.modules.get(parts[0])
        spec = (importlib.util.find_spec(parts[0]) if loaded is None
                else getattr(loaded, "__spec__", None) or True)
    except (ImportError, ValueError):
        spec = None
    finally:
        if saved is not None:
            sys.path[0] = saved
    if spec is None:
        raise WontStart(f"No module named {parts[0]!r} (the program did not start)", 1)
    if spec is True or len(parts) == 1:
        return
    for i, part in enumerate(parts[1:], 1):
        locations = spec.submodule_search_locations
        if locations is None:
            raise WontStart(f"No module named {'.'.join(parts[:i + 1])!r}; "
                            f"{'.'.join(parts[:i])!r} is not a package (the program did not "
                            "start)", 1)
        if _computes_path(spec):
            return
        spec = importlib.machinery.PathFinder.find_spec(part, list(locations))
        if spec is None:
            raise WontStart(f"No module named {'.'.join(parts[:i + 1])!r} (the program did "
                            "not start)", 1)


def _computes_path(spec: importlib.machinery.ModuleSpec) -> bool:
    """A package whose __init__ changes its own __path__ (pkgutil.extend_path and the like)."""
    origin = spec.origin
    if not origin or not origin.endswith(".py"):
        return origin not in (None, "namespace") and spec.loader is not None and \
            not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    try:
        with open(origin, encoding="utf-8", errors="replace") as f:
            return "__path__" in f.read()
    except OSError:
        return True
