"""A compiled function called from several lines in turn, each with arguments of its own kind
(probes34d mps_contract_eq: a one-op `contract(eq, a, b)` compiled on its own and called from
three lines of a loop with other einsum strings and ranks: the calls took turns failing each
other's guards up to the recompile limit, said as "a's rank changed"). The cause is the
call sites, and the fix is to compile what makes the calls, or one function per site.

Read from the calls that started each compile of the frame (their innermost user line): two
or more lines of one file, a line coming back after another, for a guard that dynamic shapes
or a mode switch do not explain."""

from __future__ import annotations

from typing import Any, NamedTuple

from compdiag.analyses.recompile_instances import frame_cids
from compdiag.formats.code_text import def_at

# guards of a kind one call site can change alone (a size: dynamic shapes; a mode: by design)
NOT_SITES = ("size", "size_range", "size_branch", "size_order", "global_state", "training",
             "requires_grad", "zero_one")
REASON = "; from {n} call lines in turn: {lines}"  # after the guard's words
EXPLANATION = ("A compiled function keeps one graph per kind of arguments it is called with; "
               "{fn}() is called from lines {lines}, each passing arguments another graph must "
               "serve ({src} differs between them), so the calls take turns failing each "
               "other's guards: it compiles for each line, and again whenever a line brings a "
               "new value, until the recompile limit.")
FIX = ("{compile_caller}, so one graph holds them all; or give each call site a function of "
       "its own (another `def`: torch.compile keeps one set of graphs and one recompile limit "
       "per function's code, however many times it is wrapped), so every site keeps its "
       "graphs; a helper of one op gains little from torch.compile on its own.")


class Sites(NamedTuple):
    lines: list[int]
    caller: str | None  # the function the calls are in (None: the module's own code)


def call_sites(ctx: Any, frame_no: Any, category: str) -> Sites | None:
    """The lines of one file that called the frame's compiles in turn; None otherwise."""
    if category in NOT_SITES:
        return None
    calls = [ctx.call_chain(c) for c in frame_cids(ctx, frame_no)]
    inner = [chain[-1] for chain in calls if chain]
    if len(inner) < 3 or len({f.filename for f in inner}) != 1:
        return None
    order = [f.lineno for f in inner]
    lines = list(dict.fromkeys(order))
    # the lines take turns, twice at least (A, B, A, B): not one line's own new value
    back = sum(order[i] in order[:i] and order[i] != order[i - 1] for i in range(1, len(order)))
    if len(lines) < 2 or back < 2:
        return None
    return Sites(sorted(lines), _enclosing(ctx, inner[0].filename, lines[0]))


def _enclosing(ctx: Any, filename: str, lineno: int) -> str | None:
    """The name of the innermost def holding `lineno` in the kept source."""
    found = def_at(ctx.source_text(filename), lineno)
    return found.name if found is not None else None


def words(sites: Sites, fn: str | None, src: str) -> dict[str, Any]:
    """The fields of REASON, EXPLANATION and FIX for these call sites."""
    lines = ", ".join(map(str, sites.lines))
    caller = (f"Compile the function that makes these calls (`{sites.caller}`)" if sites.caller
              else "Move the loop that makes these calls into a function and compile that")
    return {"fn": fn or "the function", "n": len(sites.lines), "lines": lines,
            "compile_caller": caller, "src": src}
