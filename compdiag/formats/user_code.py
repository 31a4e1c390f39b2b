"""What counts as the user's own code, and the frames of a traceback-like text.

One definition for every layer: capture picks the user frame of an escaping exception,
ingest the user line of a failing op and the call site of a compile, explain the line a
diagnosis points at. Three copies used to disagree; this one is their union: not the user's
is whatever lies under this python's library roots or compdiag itself (on this machine), and
whatever a path says is a library, torch (an installed one or a checkout), Inductor's
generated code or compdiag's capture (also in a log recorded on another machine).
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from typing import Any

from compdiag.formats import lazy_re


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
    compdiag_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots.add(os.path.realpath(compdiag_dir))
    return tuple(sorted(roots))


_LIB_ROOTS = _lib_roots()
_LIB_MARKERS = ("/site-packages/", "/dist-packages/", "torchinductor_", "/torch/",
                "/compdiag/capture/")
_STDLIB_RE = lazy_re.compile(r"/lib/python3[^/]*/")
# Inductor's generated code in any cache dir (TORCHINDUCTOR_CACHE_DIR may be anywhere): the
# module is named c<hash>.py in a folder named after the hash's 2nd and 3rd characters.
_GENERATED_RE = lazy_re.compile(r"/(?P<dir>[a-z0-9]{2})/c(?P<hash>[a-z0-9]{40,64})\.py$")


def is_user_file(filename: str | None) -> bool:
    """The user's code: not torch, not a library, not the stdlib, not compdiag, not generated."""
    if not isinstance(filename, str) or not filename or filename.startswith("<"):
        return False
    # a relative path (a store recorded in another checkout, its root taken off) matches the
    # markers as the absolute one would
    path = "/" + filename.replace("\\", "/").lstrip("/")
    if any(m in path for m in _LIB_MARKERS) or _STDLIB_RE.search(path):
        return False
    gen = _GENERATED_RE.search(path)
    if gen and gen.group("dir") == gen.group("hash")[:2]:
        return False
    return not (os.path.isabs(filename) and _under_lib_root(filename))


@functools.lru_cache(maxsize=4096)
def _under_lib_root(filename: str) -> bool:
    real = os.path.realpath(filename)
    if any(real == r or real.startswith(r + os.sep) for r in _LIB_ROOTS):
        return True
    # an install target outside this python's roots (`pip install --target DIR`, a
    # PYTHONPATH'd vendor folder): a folder holding installed distributions' metadata
    # (probes41c: transformers installed into /tmp/p41c/site was "code of yours", and a
    # diagnosis pointed at its sdpa_attention.py)
    parent = os.path.dirname(real)
    while parent and parent != os.path.dirname(parent):
        if _holds_distributions(parent):
            return True
        parent = os.path.dirname(parent)
    return False


@functools.lru_cache(maxsize=1024)
def _holds_distributions(folder: str) -> bool:
    """Whether `folder` is where pip installs packages: it holds `*.dist-info` folders (an
    editable install's metadata lies in site-packages, not beside the project's code)."""
    try:
        return any(name.endswith(".dist-info") for name in os.listdir(folder))
    except OSError:
        return False


def module_name(filename: str | None) -> str | None:
    """The dotted module an installed library's file is (`transformers.modeling_utils` for
    .../site-packages/transformers/modeling_utils.py, or under a folder pip installed into);
    None for a file outside any install root."""
    path = str(filename or "").replace("\\", "/")
    if not path.endswith(".py"):
        return None
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            rel = path.rsplit(marker, 1)[1]
            break
    else:
        parent = os.path.dirname(path)
        while parent and parent != os.path.dirname(parent) and not _holds_distributions(parent):
            parent = os.path.dirname(parent)
        if not parent or parent == os.path.dirname(parent):
            return None
        rel = path[len(parent):].lstrip("/")
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


_FRAME_RE = lazy_re.compile(r'^\s*File "(?P<file>.+?)", line (?P<line>\d+)(?:, in (?P<fn>.+))?\s*$')


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


# torch's machinery a library call reaches last: fake tensors and dispatch (and Dynamo)
_MACHINERY = ("/torch/_subclasses/", "/torch/_dynamo/", "/torch/_ops.py", "/torch/_compile.py",
              "/torch/utils/_stats.py", "/torch/_utils_internal.py")


def library_call(frames: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The library frame a traceback's fake-tensor run was entered from: the last frame of
    torch's library code (not the user's, not Dynamo's, fake tensors' or dispatch's) before
    the first fake-tensor frame that follows one (`unbind_int` in torch/nested/_internal/ops.py, whose
    `offsets.diff().tolist()` needed the data: probes33g njt_unbind_pool); None where there
    is none."""
    last = None
    for f in frames:
        name = str(f.get("filename") or "").replace("\\", "/")
        if "/torch/_subclasses/fake_tensor.py" in name and last is not None:
            return last
        if "/torch/_dynamo/" in name or is_user_file(f.get("filename")):
            last = None  # a call into torch starts again below Dynamo or the user's code
        elif "/torch/" in name and not any(m in name for m in _MACHINERY):
            last = f
    return None
