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

ZERO_ONE_EXPLANATION = (
    "torch specialises sizes 0 and 1 (0/1 specialisation): a size of {ones} got a graph of "
    "its own, and the change from or to it compiled again: {recompiles} here, each kept and "
    "reused, not one per call.")
ZERO_ONE_FIX = ("Nothing to do: the graphs are compiled once and reused. More recompiles on "
                "this size than it took values of 0 or 1, plus one, would be a problem.")


def zero_one_bounded(values: list[Any], count: int, *, specialised_by_line: bool,
                     made_dynamic: bool) -> bool:
    """Whether a size's recompiles are the ones 0/1 specialisation makes anyway (probes30a:
    a decode step's size 1 between prefill lengths 7 and 11, "2 recompiles: a new value
    every call"; a beam count 1 -> 4, once): it took 0 or 1, and recompiled once, or (no
    line specialising it, the last graph dynamic) no more than once per such value plus
    one."""
    ones = len({str(v) for v in values} & {"0", "1"})
    return ones > 0 and (count == 1 or (not specialised_by_line and made_dynamic
                                        and count <= ones + 1))


# At the limit with other tensors' 0/1 graphs failing too (analyses/zero_one.py; probes32e
# pad_gt_boxes: mark_dynamic left 7 recompiles, mark_unbacked on each left none).
ZERO_ONE_LIMIT_FIX = (
    "Sizes 0 and 1 kept coming, here and on {sources}: each is a graph of its own, and several "
    "such sizes make a graph per combination, past the limit. Let one graph take every size: "
    "`torch._dynamo.decorators.mark_unbacked({tensor}, {dim})` on each of these tensors before "
    "the call (code that checks the size, BatchNorm's batch check or a `view` on it, then "
    "breaks on the unbacked size), or pad each to a size of 2 or more and mask the padding.")


def new_value(ctx: Any, category: str, source: str, last: dict[str, Any]) -> Any:
    """The guarded value's new value: the event's, or the recompiled entry's own guard."""
    if last["after"] is not None or category not in VALUE_GUARDS:
        return last["after"]
    for spelling in dict.fromkeys((source, tree_spelling(source))):
        after = ctx.r.guard_value(ctx.run_id, last["compile_id"], spelling)
        if after is not None:
            return after
    return None


def zero_one_events(evs: list[dict[str, Any]]) -> int:
    """How many of a size's guard failures were a 0/1 graph's (its size before was 0 or 1)."""
    return sum(str(x["before"]) in ZERO_ONE for x in evs)


def zero_one_limits(groups: dict[tuple, list[dict[str, Any]]], limits: dict[Any, Any],
                    after_of: Callable[[tuple, list[dict[str, Any]]], Any]
                    ) -> dict[Any, tuple[tuple, tuple[tuple, ...]]]:
    """{frame: (cause key, follower keys)} for each function at the recompile limit whose size
    recompiles are 0/1 specialisation's: its dynamic graph's range guard failed on a 0 or 1
    (that group is the cause), or, with no such guard, two or more sizes failed their 0/1
    graphs' static guards (their size before was 0 or 1, all but the first automatic-dynamic
    change) and those failures are at least half of the function's (the largest is the
    cause). The followers are the other such size groups. A key is (frame, category, guarded
    expression), as recompiles groups them (pytorch/pytorch#136605: several inputs whose sizes
    are sometimes 0 or 1, a graph per combination)."""
    out: dict[Any, tuple[tuple, tuple[tuple, ...]]] = {}
    for frame in limits:
        mine = {k: e for k, e in groups.items() if k[0] == frame}
        sized = [k for k, e in mine.items() if k[1] == "size" and zero_one_events(e) >= 1
                 and all(str(x["before"]) in ZERO_ONE for x in e[1:])]
        ranged = [k for k, e in mine.items() if k[1] == "size_range"
                  and str(after_of(k, e)) in ZERO_ONE]
        if ranged:
            cause = max(ranged, key=lambda k: len(mine[k]))
        elif len(sized) >= 2 and 2 * sum(zero_one_events(mine[k]) for k in sized) >= \
                sum(len(e) for e in mine.values()):
            cause = max(sized, key=lambda k: zero_one_events(mine[k]))
        else:
            continue
        out[frame] = (cause, tuple(k for k in sized if k != cause))
    return out
