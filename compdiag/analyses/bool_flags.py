"""A Python bool a recompile's guard failed on: a flag that picks a branch (one graph per
value, both kept: by design), or torch.cond's predicate, which it is not.

`torch.cond(pred, ...)` exists to keep both branches in one graph; given a Python bool, Dynamo
specialises on it, traces only the branch it picks and compiles again when it flips (torch
warns "Pred is a Python constant"). Called that way, every flip is the recompile cond was
written to avoid (probes37d cond_python_bool_flag: a residual switch alternating per step,
said as information with "nothing to do", where a tensor predicate fixes it)."""

from __future__ import annotations

import re

BOOLS = {"True", "False"}
# the statement hands the value to torch.cond (the line torch's guard names may be the first
# line of a call spread over several: `return torch.cond(use_residual,`)
COND_CALL = r"(?<![\w.])(?:torch\.)?cond\s*\(\s*{name}\s*(?:,|$)"
COND_PRED_FIX = (
    "Pass the predicate as a tensor, `torch.tensor({src})` (or a 0-d bool tensor computed in "
    "the graph): torch.cond then keeps both branches in one graph and picks one at run time. "
    "A Python bool makes Dynamo trace only the branch it picks, and compile again each time "
    "it flips.")


def bool_flag(before: object, after: object, line: str | None,
              name: str | None = None) -> str | None:
    """"cond" where a bool guard's value (`name`, as the user spells it) is the predicate, the
    first argument, of a torch.cond call on `line`; "flag" for any other bool that changed
    (True -> False, or from a bool to a value torch did not record: the other bool, as a bool
    guard fails only on it); None when the value is no bool."""
    if str(before) not in BOOLS or (after is not None and {str(before), str(after)} != BOOLS):
        return None
    pred = COND_CALL.format(name=re.escape(name)) if name else None
    return "cond" if pred and re.search(pred, (line or "").strip()) else "flag"
