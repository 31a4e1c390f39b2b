"""Sizes 0 and 1 that keep a function recompiling up to its limit: one cause, not one finding
per tensor.

torch specialises sizes 0 and 1 even in a dynamic graph. A function taking several tensors
whose sizes are often 0 or 1 (a list of per-image boxes, 0 to 5 each) gets a graph per
combination: the range guard of the dynamic graph fails on a 0 or a 1, and the 0/1 graphs'
own static guards fail on the next size. At the recompile limit that is one cause (the
specialisation, at the line that used the size) and its consequences (the static guards of
the 0/1 graphs, on whichever tensor torch checked first), not a limit on one tensor at the
call (probes32e pad_gt_boxes: the limit was put on `gt_boxes_per_image[3]` at the call, its
mark_dynamic fix left 7 recompiles; the 0/1 range guard was a second panel)."""

from __future__ import annotations

from typing import Any, Callable

from compdiag.analyses.recompile_rules import VALUE_GUARDS, tree_spelling

ZERO_ONE = ("0", "1")


def new_value(ctx: Any, category: str, source: str, last: dict[str, Any]) -> Any:
    """The guarded value's new value: the event's, or the recompiled entry's own guard."""
    if last["after"] is not None or category not in VALUE_GUARDS:
        return last["after"]
    for spelling in dict.fromkeys((source, tree_spelling(source))):
        after = ctx.r.guard_value(ctx.run_id, last["compile_id"], spelling)
        if after is not None:
            return after
    return None


def zero_one_limits(groups: dict[tuple, list[dict[str, Any]]], limits: dict[Any, Any],
                    after_of: Callable[[tuple, list[dict[str, Any]]], Any]
                    ) -> dict[Any, tuple[tuple, tuple[tuple, ...]]]:
    """{frame: (cause key, follower keys)} for each function at the recompile limit whose
    dynamic graph's range guard failed on a size of 0 or 1: the followers are the frame's size
    groups whose every failure was a 0/1 graph's static guard (its size before was 0 or 1).
    A key is (frame, category, guarded expression), as recompiles groups them."""
    out: dict[Any, tuple[tuple, tuple[tuple, ...]]] = {}
    for key, evs in groups.items():
        frame, category, _ = key
        if frame not in limits or category != "size_range" or \
                str(after_of(key, evs)) not in ZERO_ONE:
            continue
        followers = tuple(k for k, e in groups.items() if k[0] == frame and k[1] == "size"
                          and all(str(x["before"]) in ZERO_ONE for x in e))
        if frame not in out or len(followers) > len(out[frame][1]):
            out[frame] = (key, followers)
    return out
