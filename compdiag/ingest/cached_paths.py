"""A compile's user paths in the graphs and code torch served from a cache, made this run's.

The FX graph cache and AOTAutograd's cache key a graph by its code, not by the file it came
from: a hit hands back the post-grad graph and output code of the process that compiled it
first, with that process's `# File: PATH:N in fn, code: ...` comments. A user who ran a copy
of the program elsewhere (a draft, another checkout, a notebook export) was sent to that copy
(probes32a r1_penalty_gan: a failure "at /tmp/.../drafts/r1_penalty_gan.py:34", the file
this run never executed). Dynamo traces afresh on every compile, so its output graph's frames
are this run's: a cached artifact's user frame in a file Dynamo's graph of the same compile does
not name is read at the place Dynamo's frames hold its code (probes31b rand_flip_branch: a
draft's line 8 was the program's line 27). A frame no place of Dynamo's vouches for is left
as torch wrote it."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

_FILE = lazy_re.compile(r"File: (?P<file>[^\n]+?):(?P<line>\d+) in [^,\n]+, code: (?P<code>[^\n]*)")


def fresh_frames(frames: list[dict[str, Any] | None]) -> dict[str, set[tuple[str, int]]]:
    """Dynamo's frames of one compile as code -> the (file, line) places that hold it."""
    out: dict[str, set[tuple[str, int]]] = {}
    for f in frames:
        if f and f.get("filename") and f.get("lineno"):
            out.setdefault((f.get("line") or "").strip(), set()).add(
                (f["filename"], int(f["lineno"])))
    return out


def fresh_paths(payload: str | None, fresh: dict[str, set[tuple[str, int]]]) -> str | None:
    """`payload` with each user frame whose file Dynamo's frames do not name moved to the place
    that holds its code in Dynamo's frames: the same line and file when one has it, else the
    one place that does (a draft's line 8 is the program's line 27); `payload` itself where
    nothing is stale. A frame whose code no place, or several, hold is left as it is."""
    if not payload or not fresh or "File: " not in payload:
        return payload
    known = {name for places in fresh.values() for name, _ in places}
    stale: dict[str, bool] = {}

    def move(m: re.Match[str]) -> str:
        path, line = m.group("file"), int(m.group("line"))
        if path in known:
            return m.group(0)
        if path not in stale:
            stale[path] = is_user_file(path)
        places = fresh.get(m.group("code").strip()) if stale[path] else None
        if not places:
            return m.group(0)
        same = [p for p in places if p[1] == line]
        to = same[0] if len(same) == 1 else next(iter(places)) if len(places) == 1 else None
        if to is None:
            return m.group(0)
        return f"File: {to[0]}:{to[1]}{m.group(0)[m.end('line') - m.start():]}"

    return _FILE.sub(move, payload)
