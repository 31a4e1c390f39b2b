"""What counts as the user's own code, and the frames of a traceback-like text.

One definition for every layer: capture picks the user frame of an escaping exception,
ingest the user line of a failing op, explain the line a diagnosis points at. Three copies
used to disagree (a torch frame under a checkout, compdiag's own frames, generated code).
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from typing import Any


def _lib_roots() -> tuple[str, ...]:
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            p = sysconfig.get_paths().get(key)
        except Exception:  # noqa: BLE001
            p = None
        if p:
            roots.add(os.path.realpath(p))
    roots.add(os.path.realpath(sys.prefix))
    roots.add(os.path.realpath(sys.base_prefix))
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # compdiag itself
    return tuple(sorted(roots))


_LIB_ROOTS = _lib_roots()
_LIB_MARKERS = ("/site-packages/", "/dist-packages/", "/torchinductor_", "/torch/_dynamo/",
                "/torch/_inductor/", "/torch/nn/", "/torch/_functorch/")
_STDLIB_RE = re.compile(r"/lib/python3\.\d+/")


def is_user_file(filename: str | None) -> bool:
    """The user's code: not torch, not a library, not the stdlib, not compdiag, not generated."""
    if not filename or filename.startswith("<"):
        return False
    if any(m in filename for m in _LIB_MARKERS) or _STDLIB_RE.search(filename):
        return False
    if os.path.isabs(filename):
        real = os.path.realpath(filename)
        if any(real == r or real.startswith(r + os.sep) for r in _LIB_ROOTS):
            return False
    return True


_FRAME_RE = re.compile(r'^\s*File "(?P<file>.+?)", line (?P<line>\d+)(?:, in (?P<fn>.+))?\s*$')


def frames_in(text: str | None) -> list[dict[str, Any]]:
    """Every `File "x", line N, in f` frame in a traceback-like text, with the code line below."""
    out: list[dict[str, Any]] = []
    if not text:
        return out
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _FRAME_RE.match(line)
        if not m:
            continue
        code = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if code.startswith("File ") or set(code) <= set("^~ "):
            code = ""
        out.append({"filename": m.group("file"), "lineno": int(m.group("line")),
                    "line": code or None, "name": m.group("fn")})
    return out
