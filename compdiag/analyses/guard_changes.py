"""The other guarded values that changed between a function's entries, besides the guard
torch named: torch reports the first guard that failed (a switch to eval() under no_grad()
fails grad_mode first), and the rest are the change's other half."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.recompile_instances import frame_cids
from compdiag.analyses.recompile_rules import tree_spelling
from compdiag.formats.guard_source import in_user_spelling
from compdiag.store.reader import compile_id_key


MAX_ALSO = 3


def also_changed(ctx: Any, frame_no: Any, cid: str, source: str) -> tuple[str, ...]:
    """Guarded values (`X == V` guards) the recompiled entry holds with another value than the
    frame's previous entry, besides the guard torch named: torch reports the first guard that
    failed, and a switch to eval() under no_grad() fails grad_mode first."""
    earlier = sorted((c for c in frame_cids(ctx, frame_no)
                      if compile_id_key(c) < compile_id_key(cid)), key=compile_id_key)
    if not earlier:
        return ()
    old = ctx.r.guard_values(ctx.run_id, earlier[-1])
    new = ctx.r.guard_values(ctx.run_id, cid)
    named = {source, tree_spelling(source)}  # (and its type(...), below)
    tree = tree_spelling(source)
    same = (old.get(f"type({source})") or old.get(f"type({tree})"),  # its own type change
            new.get(f"type({source})") or new.get(f"type({tree})"))
    named |= {_spelt(source)}  # (x.size()[0] and x.shape[0] name one size)
    changed = [(g, v) for g, v in new.items() if g in old and old[g] != v
               and g not in named and _spelt(g) not in named
               and not (g.startswith("type(") and (source.startswith(g[5:-1])
                                                   or (old[g], v) == same))]
    # the other tensors' same change of class is no news; a value that changed is
    return tuple(f"{g} {old[g]} -> {v}" for g, v in sorted(
        changed, key=lambda c: c[0].startswith("type(")))[:MAX_ALSO]


def _spelt(guarded: str) -> str:
    return in_user_spelling(guarded).replace(".size()[", ".shape[")
