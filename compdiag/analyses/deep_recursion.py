"""A compile that ran out of Python stack inlining a recursive call (issue 29 §1: the line
torch points at).

Dynamo inlines a call of the function it traces into the same graph, and a recursive function
(a tree model's `self(kid)`, a recursive helper) once per level: a deep input needs a frame
stack eager never needs, and the compile fails with RecursionError, which Dynamo wraps as its
own internal error. torch's "from user code" stack repeats the recursive call's line (probes38i
treelstm_deep_chain: line 25, `h = h + self(kid)`, 71 more times); the innermost line (23) and
"a bug in torch, report it" were said."""

from __future__ import annotations

from collections import Counter
from typing import Any

from compdiag.formats.user_code import frames_in, is_user_file

RECURSION = "maximum recursion depth exceeded"
MIN_REPEATS = 3
REASON = ("RecursionError while Dynamo inlined the recursive call at line {lineno} (`{line}`), "
          "once per level of the input")
EXPLANATION = ("Dynamo traces a call of a function into the caller's graph, and a recursive "
               "call once per level: a deep input (a long chain, a deep tree) needs more Python "
               "frames than the interpreter allows, though eager runs it. Not a bug of the "
               "program's, nor torch's internal error as the wrapper says: the recursion is "
               "traced whole.")
FIX = ("Compile the work of one level and keep the recursion in eager: `torch.compile` the "
       "per-node function (a cell module, the body without the recursive call) and call it "
       "from the recursive code, or, for a fixed depth, an iterative form over the levels. "
       "Compiled whole, each input shape (a tree's shape) is a graph of its own anyway.")


def recursive_call(ctx: Any, failure: dict[str, Any]) -> dict[str, Any] | None:
    """{frame, reason, explanation, fix} for a compile failure of a recursion too deep to trace:
    at the user line its stack repeats most; None for any other failure."""
    text = f"{failure.get('message') or ''}\n{failure.get('traceback') or ''}"
    if RECURSION not in text and failure.get("exc_type") != "RecursionError":
        return None
    counts = Counter((f["filename"], f["lineno"]) for f in frames_in(failure.get("traceback"))
                     if is_user_file(f.get("filename")) and f.get("lineno"))
    if not counts:
        return None
    (path, lineno), n = counts.most_common(1)[0]
    if n < MIN_REPEATS:
        return None
    frame = ctx.frame(path, lineno, None, "torch")
    line = (frame.line or "").strip()
    return {"frame": frame, "reason": REASON.format(lineno=lineno, line=line),
            "explanation": EXPLANATION, "fix": FIX}
