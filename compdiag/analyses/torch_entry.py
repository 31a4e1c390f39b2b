"""torch.compile wrapped a callable of torch's own: `nn.Sequential(...).compile()` wraps the
Sequential's `_call_impl`, a frame Dynamo skips (torch's files), and so is every layer's
forward under it, so nothing compiles and the call runs in eager, silently (probes32a
dcgan_sequential_compile: "0 compiles; no problems found"; pytorch/pytorch#132923). Capture
keeps the skip of the compiled entry itself (capture/frame_skips.py); here it is a problem only
where no compile ran under that call (a module of the user's own, `.compile()`d, also starts at
`_call_impl` and then compiles its forward), said at the line that asked for it: the
`NAME.compile(` of an object the call's line calls."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.formats.code_text import called_names

# ingest/own_records.py's words for that skip, and the entry they name
ENTRY_SKIP = "torch.compile was given torch's own code"
_ENTRY = re.compile(r"torch's own code to start from \(([^)]*)\)")


def entry_of(row: dict[str, Any]) -> str:
    """The skipped entry a row names, `Sequential._call_impl` (capture's words)."""
    m = _ENTRY.search(row.get("reason") or "")
    return m.group(1) if m else ""


def entries_that_compiled(ctx: Any, rows: list[dict[str, Any]]) -> set[str]:
    """The entries (class and function) of which one skip's call ran a compile: a module of
    the user's own, `.compile()`d, is skipped at `_call_impl` and compiles its forward; its
    calls from other lines reuse that code, compile nothing, and are no problem either."""
    skips = [r for r in rows if ENTRY_SKIP in (r.get("reason") or "")]
    if not skips:
        return set()
    calls = {(f.filename, f.lineno) for cid in ctx.compiles for f in ctx.call_chain(cid)}
    return {entry_of(r) for r in skips if (r.get("filename"), r.get("lineno")) in calls}


def compile_line(ctx: Any, frame: UserFrame) -> UserFrame | None:
    """The line of the run's file that calls `.compile()` on an object `frame`'s line calls
    (`generator.compile()` for `fake = generator(z)`), the last before the call; None if none."""
    names = set(called_names(frame.line))
    lines = ctx.code_lines(frame.filename) or []
    found = [i for i, text in enumerate(lines[:(frame.lineno or len(lines))], 1)
             if any(f"{n}.compile(" in text for n in names)]
    return ctx.frame(frame.filename, found[-1], evidence="source") if found else None
