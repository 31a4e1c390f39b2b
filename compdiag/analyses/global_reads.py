"""Where a compiled function reads a global its guard failed on, and where the program
rebinds it: the call passes no global, so the call's line is not where the change is (set27/gpu
opt_step_per_trial_recompile: `opt.step()` at line 17 inside the compiled `opt_step()`, with
`opt = torch.optim.AdamW(...)` rebinding it per trial at line 26; the recompile was put on the
call `opt_step()` at line 30)."""

from __future__ import annotations

from typing import Any

from compdiag.formats.code_text import assigned_names, read_names


def _lines(ctx: Any, cid: str | None) -> tuple[Any, list[str], tuple[int, int]] | None:
    d, span = ctx.def_frame(cid), ctx.def_span(cid)
    lines = ctx.source_lines(d.filename) if span else None
    return (d, lines, span) if lines else None


def global_read(ctx: Any, cid: str | None, name: str) -> Any:
    """The first line of the compiled function that reads the global NAME, as a user frame;
    None where its code reads no such name."""
    found = _lines(ctx, cid)
    if found is None:
        return None
    d, lines, (first, last) = found
    for lineno in range(first + 1, min(last, len(lines)) + 1):
        if name in read_names(lines[lineno - 1]):
            return ctx.frame(d.filename, lineno, lines[lineno - 1], evidence="source")
    return None


def rebound_at(ctx: Any, cid: str | None, name: str) -> Any:
    """The program's last line outside the compiled function that assigns the global NAME."""
    found = _lines(ctx, cid)
    if found is None:
        return None
    d, lines, (first, last) = found
    hits = [n for n, text in enumerate(lines, 1)
            if not first <= n <= last and name in assigned_names(text)]
    return ctx.frame(d.filename, hits[-1], lines[hits[-1] - 1], evidence="source") \
        if hits else None
