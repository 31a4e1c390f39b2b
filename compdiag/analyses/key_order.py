"""A guard on which key sits at a position of a dict the compiled code iterates, in words
(split from guard_words.py): Dynamo unrolls `for k, v in d.items()` over the keys in their
order and guards each position, so other keys, or the same in another order, are another
graph. Where the loop never reads the keys, the fix passes the values instead."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.formats.guard_source import in_user_spelling, key_position


def _keys_unused(ctx: Any, event: dict[str, Any], box: str) -> bool:
    """Whether the `for k, v in BOX.items()` loop at the guard's line never reads `k` (or is
    a `for v in BOX.values()`): the graph needs the values only (probes47b
    multitask_batch_dict_keys: one key per batch, another each step, said as an order)."""
    filename, lineno = event.get("loc_filename"), event.get("loc_lineno")
    try:
        tree = ast.parse(ctx.source_text(ctx.resolve(filename)) or "") if filename else None
    except (SyntaxError, ValueError):
        return False
    loop = next((n for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno == lineno
                 and isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Attribute)
                 and ast.unparse(n.iter.func.value) == box), None) if tree else None
    if loop is None or loop.iter.func.attr not in ("items", "values"):
        return False
    if loop.iter.func.attr == "values":
        return True
    key = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) and loop.target.elts \
        else None
    return isinstance(key, ast.Name) and not any(
        isinstance(n, ast.Name) and n.id == key.id for b in loop.body for n in ast.walk(b))


def key_order_words(ctx: Any, event: dict[str, Any], source: str, where: str
                    ) -> tuple[str, str, str, str] | None:
    """A guard on which key sits at a position of a dict the compiled code iterates: Dynamo
    unrolls `for k, v in d.items()` over the keys in their order and guards each position, so
    the same keys in another order are another graph (probes40a multitask_loss_dict_order,
    pytorch#124779: a batch dict of four tasks in a shuffled order, at the recompile limit;
    said as "<key 0> is a Python string that differs between calls", with "pass it as a
    tensor")."""
    at = key_position(source)
    if at is None:
        return None
    box, pos = in_user_spelling(at[0]), at[1]
    before, after = event.get("before"), event.get("after")
    change = f": at position {pos}, {before} -> {after or 'another key'}" if before else ""
    if _keys_unused(ctx, event, box):  # the keys only pick graphs: pass the values
        fn = where.rstrip("()")
        return (f"{box}'s keys changed (other keys, or another order)", change,
                f"{where} iterates {box} and Dynamo guards which key is at each position, so "
                f"other keys, or the same in another order, are another graph, though the loop "
                f"never reads the keys.",
                f"Pass the values, not the dict: `{fn}(list({box}.values()))`, and loop over "
                f"the list in {where}; one graph serves every key and order (with the same "
                f"number of items).")
    return (f"the order of {box}'s keys changed", change,
            f"{where} iterates {box} (`.items()`, `.keys()` or a `for` over it), and Dynamo "
            f"unrolls that loop over the keys in their order, guarding which key is at each "
            f"position: the same keys in another order, or other keys, are another graph, one "
            f"per order met.",
            f"Iterate {box} in one fixed order of keys (`for k in KEYS: v = {box}[k]`, KEYS a "
            f"tuple defined once), or build it in that order before the call (`{box} = "
            f"{{k: {box}[k] for k in KEYS}}`), with the same keys every call.")
