"""Which of a recompile group's failures says where the guarded value is read: torch ties
each failure to a line, and a group's first failure can be another cause's (a size of 1
specialised in library code), while the rest name the line that keeps failing (probes33e
iwae_k_sweep: `k == 1` at distributions/utils.py, then `k == 2, 5, ...` at `math.log(k)`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from compdiag.analyses.guard_words import previous_compile
from compdiag.analyses.recompile_rules import tree_spelling
from compdiag.formats.user_code import is_user_file


def usual_read(ctx: Any, evs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last event read at the user line most of EVS were read at; None where none was."""
    mine = [e for e in evs if e.get("loc_filename") and is_user_file(
        ctx.resolve(e["loc_filename"]))]
    counts = Counter((e["loc_filename"], e["loc_lineno"]) for e in mine)
    return max(reversed(mine), key=lambda e: counts[(e["loc_filename"], e["loc_lineno"])],
               default=None)


def loc_of(event: dict[str, Any] | None) -> dict[str, Any]:
    return {k: event[k] for k in ("loc_filename", "loc_lineno", "loc_line")} if event else {}


def values_seen(evs: list[dict[str, Any]], last: Any = None, ctx: Any = None
                ) -> list[Any]:
    """The values the function was called with, in order: the first compile's, then the one
    that failed each guard (probes35f char_rnn_name_lengths: the guards' expected sides, 5, 5,
    6, 7, 8, 8 for lengths 5, 6, 4, 7, 8, 2). Where torch said only the expected sides, the
    value that failed the last guard (`last`, found in the next compile) ends them (probes38e
    kmeans_elbow_onehot_k: "k changed (2 -> 4)" over "values seen 2, 3")."""
    # each compile's own guard tree holds the value it was compiled for: the values in order
    # (probes41h mc_dropout_num_samples_attr: a recompile's failed guard is one entry's, and
    # the expected sides read "8, 16, 8, 12", one value twice and 32 missing)
    own = [v for v in (ctx.r.guard_value(ctx.run_id, cid, tree_spelling(evs[0]["guarded"]))
                       for cid in _compiles_of(ctx, evs)) if v is not None] \
        if ctx is not None and evs and evs[0].get("guarded") else []
    if len(own) >= len(evs):  # (a compile the limit stopped holds no tree)
        return own
    first = [evs[0]["before"]] if evs and evs[0].get("before") is not None else []
    afters = [e["after"] for e in evs if e.get("after") is not None]
    if len(afters) == len(evs):
        return first + afters
    befores = [e["before"] for e in evs if e.get("before") is not None]
    return befores + ([last] if last is not None and str(last) != str(
        (befores or [None])[-1]) else [])


def _compiles_of(ctx: Any, evs: list[dict[str, Any]]) -> list[str]:
    """The compile before the first recompile, then each recompile's, in order."""
    cids = [e["compile_id"] for e in evs if e.get("compile_id")]
    first = previous_compile(ctx, cids[0]) if cids else None
    return ([first] if first else []) + cids
