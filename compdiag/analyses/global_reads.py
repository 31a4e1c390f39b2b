"""Where a compiled function reads a global its guard failed on, and where the program
rebinds it: the call passes no global, so the call's line is not where the change is (set27/gpu
opt_step_per_trial_recompile: `opt.step()` at line 17 inside the compiled `opt_step()`, with
`opt = torch.optim.AdamW(...)` rebinding it per trial at line 26; the recompile was put on the
call `opt_step()` at line 30)."""

from __future__ import annotations

import re
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
    return _last_line(ctx, d.filename, lines,
                      lambda n, text: not first <= n <= last and name in assigned_names(text))


def _last_line(ctx: Any, filename: str, lines: list[str], keep: Any) -> Any:
    """The last of `lines` (1-based number, text) that `keep` accepts, as a user frame."""
    hits = [n for n, text in enumerate(lines, 1) if keep(n, text)]
    return ctx.frame(filename, hits[-1], lines[hits[-1] - 1], evidence="source") \
        if hits else None


def attribute_rebound_at(ctx: Any, cid: str | None, attr: str) -> Any:
    """The program's last line outside the compiled method that assigns a new object to the
    attribute ATTR of an object from outside its class (`model.ste = make_ste(...)`, not the
    class's own `self.ste = ...`): where the object an identity guard on `self.ATTR` compares
    is replaced (probes39d afn_ste_factory_recompile: line 41 rebuilt it every step; the
    recompile was put on the compiled call at line 42)."""
    found = _lines(ctx, cid)
    if found is None:
        return None
    d, lines, (first, last) = found
    store = re.compile(rf"(?<![\w.])(?!self\b)[A-Za-z_][\w.\[\]'\"]*\.{re.escape(attr)}\s*=(?!=)")
    return _last_line(ctx, d.filename, lines, lambda n, text: not first <= n <= last
                      and store.search(text.split("#")[0]) is not None)


def state_loaded_at(ctx: Any, cid: str | None) -> Any:
    """The program's last `.load_state_dict(` line in the files of the call that compiled an
    optimizer's `step` (whose identity guards on `self.state[...]` a load fails: the load
    replaces every state tensor; probes39c opt_step_resume_state_recompile)."""
    for f in reversed(ctx.call_chain(cid)):
        at = _last_line(ctx, f.filename, ctx.source_lines(f.filename) or [],
                        lambda n, text: ".load_state_dict(" in text.split("#")[0])
        if at is not None:
            return at
    return None


_SELF_ATTR = re.compile(r"(?:self|L\['self'\])\.(\w+)")
_OPTIMIZER_STATE = ("self.state[", "L['self'].state[")


def replaced_at(ctx: Any, cid: str | None, source: str, fn: str | None
                ) -> tuple[Any, str, str] | None:
    """(the line, explanation words, fix) where the program replaces the object an identity
    guard on `source` compares: a `self.ATTR` assigned from outside its class, an optimizer's
    state that `load_state_dict` rebuilt; None where no such line is found."""
    m = _SELF_ATTR.fullmatch(source)
    at = attribute_rebound_at(ctx, cid, m.group(1)) if m else None
    if at is not None:
        stmt = (at.line or "").strip()
        return (at, f"Line {at.lineno} (`{stmt}`) assigns a new object to it between calls, "
                    "and each new object fails the guard.",
                f"Make the object once and reuse it: build the few variants before the loop "
                f"(or cache them, `functools.lru_cache` on the function that makes them) and "
                f"assign one of those at line {at.lineno}, not a new one each time.")
    if fn == "step" and source.startswith(_OPTIMIZER_STATE):
        at = state_loaded_at(ctx, cid)
        if at is not None:
            return (at, f"`load_state_dict` at line {at.lineno} replaces every state tensor of "
                        "the optimizer with a new one, and the compiled `step` guards each by "
                        "identity: every load compiles it again.",
                    "Copy the loaded values into the optimizer's existing state tensors "
                    "instead of `load_state_dict` (`opt.state[p][k].copy_(loaded[k])` for each "
                    "parameter `p` and state key `k`), or load before the first compiled step; "
                    "a recompile per load is otherwise the cost of resuming.")
    return None
