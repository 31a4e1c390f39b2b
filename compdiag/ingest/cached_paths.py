"""A compile's user paths in the graphs and code torch served from a cache, made this run's.

The FX graph cache and AOTAutograd's cache key a graph by its code, not by the file it came
from: a hit hands back the post-grad graph and output code of the process that compiled it
first, with that process's `# File: PATH:N in fn, code: ...` comments. A user who ran a copy
of the program elsewhere (a draft, another checkout, a notebook export) was sent to that copy
(probes32a r1_penalty_gan: a failure "at /tmp/.../drafts/r1_penalty_gan.py:34", the file
this run never executed). Dynamo traces afresh on every compile, so its output graph's frames
are this run's: a cached artifact's user path that Dynamo's graph of the same compile does not
name is that path's stale spelling when the frames agree on the line and its code, and is
read as Dynamo's path. A path no frame of Dynamo's vouches for is left as torch wrote it."""

from __future__ import annotations

from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

_FILE = lazy_re.compile(r"File: (?P<file>[^\n]+?):(?P<line>\d+) in [^,\n]+, code: (?P<code>[^\n]*)")


def fresh_frames(frames: list[dict[str, Any] | None]) -> dict[tuple[int, str], set[str]]:
    """Dynamo's frames of one compile as (line number, code) -> the files that hold it."""
    out: dict[tuple[int, str], set[str]] = {}
    for f in frames:
        if f and f.get("filename") and f.get("lineno"):
            out.setdefault((int(f["lineno"]), (f.get("line") or "").strip()),
                           set()).add(f["filename"])
    return out


def fresh_paths(payload: str | None, fresh: dict[tuple[int, str], set[str]]) -> str | None:
    """`payload` with each user path Dynamo's frames do not name replaced by the one they do,
    where every frame of that path that Dynamo's graph holds (same line, same code) names one
    and the same file; `payload` itself where nothing is stale."""
    if not payload or not fresh or "File: " not in payload:
        return payload
    known = {name for names in fresh.values() for name in names}
    seen: dict[str, set[str] | None] = {}  # a stale path -> the fresh files its frames name
    for m in _FILE.finditer(payload):
        path = m.group("file")
        if path in known or seen.get(path, ()) is None:
            continue
        if path not in seen and not is_user_file(path):
            seen[path] = None
            continue
        names = fresh.get((int(m.group("line")), m.group("code").strip()))
        if names:
            seen.setdefault(path, set()).update(names)
    swaps = {path: next(iter(names)) for path, names in seen.items()
             if names is not None and len(names) == 1}
    for stale, path in swaps.items():
        payload = payload.replace(f"File: {stale}:", f"File: {path}:")
    return payload
