"""A data-dependent `if` whose branch only raises: a check of the program's on a tensor's value
(probes38j ntxent_nonfinite_raise_fullgraph: `if not torch.isfinite(loss): raise
FloatingPointError(...)` under fullgraph=True). The break's usual fix, `torch.where` or
`torch.cond`, has nothing to select; the check belongs after the compiled call, where the value
is a number."""

from __future__ import annotations

from typing import Any

from compdiag.formats.code_text import branch_condition

FIX = ("The `if` at line {lineno} only raises, a check on a tensor's value (`{cond}`): there "
       "is nothing for `torch.where`/`torch.cond` to select. Return the value and check it "
       "after the compiled call, in eager (`if {cond}: raise ...` there), "
       "which keeps fullgraph=True; or `torch._assert_async(cond, \"message\")` inside, which "
       "raises when the compiled code runs.")


def raising_branch(ctx: Any, frame: Any) -> dict[str, str] | None:
    """{clause, fix} for a data-dependent `if` at FRAME whose body starts with a `raise`;
    None for any other line."""
    cond = branch_condition(frame.line)
    if cond is None or not frame.lineno:
        return None
    body = (ctx.source_line(frame.filename, frame.lineno + 1) or "").strip()
    if not body.startswith("raise"):
        return None
    return {"clause": f", on `{cond}`, a check that only raises",
            "fix": FIX.format(lineno=frame.lineno, cond=cond)}
