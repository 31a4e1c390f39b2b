"""The program's own line that sets Inductor's cache directory (TORCHINDUCTOR_CACHE_DIR), for a
warm start that missed with the very key an earlier run stored (probes42f
cache_dir_mkdtemp_cold, blind: `os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp()`
at every launch; the miss was said at the compiled call with three possible causes, none the
program's line). A directory made fresh per process (mkdtemp, a uuid, a time, a pid) is
never the earlier run's."""

from __future__ import annotations

import re
from typing import Any

_SETS = re.compile(r"""TORCHINDUCTOR_CACHE_DIR['"]\s*(?:\]\s*=(?!=)|,)""")
_FRESH = re.compile(r"mkdtemp|TemporaryDirectory|uuid|time\.|datetime|getpid|random")

FRESH_REASON = ("; the program sets TORCHINDUCTOR_CACHE_DIR to a new directory at each launch "
                "(line {lineno})")
FRESH_FIX = ("Give the cache one directory that outlives the process (a fixed path, e.g. "
             "`~/.cache/myapp/inductor`, made once) instead of a new one per launch at line "
             "{lineno}; a temporary directory is gone, or another, at the next start.")
SET_REASON = "; the program sets TORCHINDUCTOR_CACHE_DIR itself (line {lineno})"


def cache_dir_line(ctx: Any, filenames: tuple[str | None, ...]) -> tuple[Any, bool] | None:
    """(the frame of the first line of FILENAMES that sets TORCHINDUCTOR_CACHE_DIR, whether
    the value it sets is made fresh per process), or None."""
    for path in dict.fromkeys(f for f in filenames if f):
        lines = ctx.code_lines(path) or []
        raw = ctx.source_lines(path) or []
        for i, text in enumerate(lines, 1):
            # the variable's name is a string, blanked in code lines: read the raw line
            line = raw[i - 1] if i <= len(raw) else text
            if _SETS.search(line) and "os.environ" in line or "putenv" in line and \
                    "TORCHINDUCTOR_CACHE_DIR" in line:
                near = " ".join(raw[max(0, i - 4):i])  # `d = mkdtemp()` just above it
                return ctx.frame(path, i, evidence="source"), bool(_FRESH.search(near))
    return None
