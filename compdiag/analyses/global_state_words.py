"""A recompile on a process-wide setting Dynamo guards (torch's `GLOBAL_STATE changed: NAME`),
said as the setting and the program's line that changed it (probes36d
determinism_check_recompile: `torch.use_deterministic_algorithms(True)` for a reproducibility
pass recompiled the scorer, said at the compiled call with the grad-mode fix, which never
named determinism). The setter's line is found in the kept source: the call between the
previous compile's call and this one's (the line that changed it), else the last before this
call, else the first."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from compdiag.analyses.locate import source_matches
from compdiag.formats.code_text import innermost_def


class Setting(NamedTuple):
    state: str  # torch's name in the GLOBAL_STATE guard
    setter: re.Pattern[str]  # the call that changes it, in the program's code
    call: str  # that call, as the words say it
    what: str
    node: str | None = None  # its node in Dynamo's graph, where compiled code drops it
    # (analyses/settings_in_graph.py)


# the process-wide settings the program's code changes, for both a recompile on one and a
# change of one inside compiled code
SETTINGS = (
    Setting("deterministic_algorithms", re.compile(r"\buse_deterministic_algorithms\s*\("),
            "torch.use_deterministic_algorithms", "deterministic algorithms",
            "_set_deterministic_algorithms"),
    Setting("default_dtype", re.compile(r"\bset_default_dtype\s*\("), "torch.set_default_dtype",
            "the default dtype"),
)
EXPLANATION = ("{where} was compiled with {what} set one way and is now called with it set the "
               "other: Dynamo guards on `{call}`'s setting (it decides what the graph "
               "computes or which kernels it may use), so this call compiled a graph of its "
               "own. Both graphs stay cached.")
FIX = ("Nothing to do if both settings are meant: each graph is compiled once and kept. To "
       "compile once, call `{call}(...)` once before the first compiled call and leave it "
       "(line {lineno} changes it between calls).")


def setting_changed(ctx: Any, cid: str, prev: str | None, state: str, where: str
                    ) -> tuple[str, str, str, Any] | None:
    """(head, explanation, fix, the setter's frame) for a GLOBAL_STATE recompile on `state`
    that SETTINGS knows; None otherwise or where the program's code never calls its setter."""
    names = state.split()  # torch lists every setting that changed
    setting = next((s for s in SETTINGS if s.state in names), None)
    if setting is None:
        return None
    lines = source_matches(ctx, cid, setting.setter)
    if not lines:
        return None
    here, there = _outer(ctx, cid), _outer(ctx, prev)
    same = [f for f in lines if here is not None and f.filename == here.filename]
    between = [f for f in same if there is not None and there.filename == here.filename
               and (there.lineno or 0) < (f.lineno or 0) < (here.lineno or 0)]
    before = [f for f in same if (f.lineno or 0) < (here.lineno or 0)]
    # the setter nearest above the call, from the innermost frame out: the line the compiled
    # call's own function ran before it (probes43j calib_ece_default_dtype: the float64 set at
    # line 23 inside the report, not the float32 reset at 31 above main's call of it)
    nearest: list[Any] = []
    for c in reversed(ctx.call_chain(cid) if cid else []):
        ahead = [f for f in lines if f.filename == c.filename
                 and (f.lineno or 0) < (c.lineno or 0) and _same_function(ctx, f, c)]
        if ahead:
            nearest = [max(ahead, key=lambda f: f.lineno or 0)]
            break
    frame = (between or nearest or before[-1:] or lines)[0]
    words = {"where": where, "what": setting.what, "call": setting.call,
             "lineno": frame.lineno}
    fix = FIX.format(**words)
    if not (between or before):  # no line is known to have changed it between the calls
        fix = fix.split(" (line ")[0] + "."
    return (f"{setting.what} changed (`{setting.call}`, line {frame.lineno})",
            EXPLANATION.format(**words), fix, frame)


def _same_function(ctx: Any, a: Any, b: Any) -> bool:
    """Whether two lines of one file are in the same innermost function (the module's code
    when in none)."""
    import ast

    try:
        tree = ast.parse(ctx.source_text(a.filename) or "")
    except (SyntaxError, ValueError):
        return False
    return innermost_def(tree, a.lineno or 0) is innermost_def(tree, b.lineno or 0)


def _outer(ctx: Any, cid: str | None) -> Any:
    """The outermost user frame of the call that triggered a compile (the program's line)."""
    chain = ctx.call_chain(cid) if cid else []
    return chain[0] if chain else None
