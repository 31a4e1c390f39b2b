"""A Python number that picks an item of an nn container (`self.heads[task]` of a ModuleDict,
`step_lrs[step]` of a ParameterList) inside a compiled function: torch ties the guard to its
own container.py (`idx = operator.index(idx)`), so the user's line is the lookup in the
compiled function's code, found by what it indexes with. probes33b mamlpp_per_step_lr: the
recompile on `step` was put on the call (line 35) with a fix about modules, while line 22
picks a learning-rate Parameter."""

from __future__ import annotations

from typing import Any

from compdiag.formats.code_text import indexed_by

CONTAINER_FILE = "nn/modules/container.py"
# containers whose items are Parameters: a tensor of them can stand for the lookup
PARAMETER_CONTAINERS = ("ParameterList", "ParameterDict")

PARAMETER_FIX = (
    "Keep the values in one tensor Parameter, `{box} = nn.Parameter(torch.stack(list({box})))`"
    " (created once, outside the compiled function), and pass {var} as a tensor "
    "(`torch.tensor({var})`): indexing a tensor with a tensor is one graph for every value. "
    "Or do the lookup `{lookup}` outside the compiled function and pass the Parameter in.")
MODULE_FIX = (
    "{var} picks which module of `{box}` runs: each module is other code with other weights, "
    "so every value is a graph of its own, compiled once and reused when it comes back; a "
    "tensor cannot stand for it. Compile the part every value shares and run the picked "
    "module in eager (`{lookup}` outside the compiled function).")


def container_pick(ctx: Any, event: dict[str, Any], var: str, names: set[str]
                   ) -> tuple[Any, str, str, str] | None:
    """(the lookup's user frame, the container, the lookup, the container's type) for a
    guard torch tied to container.py, from the compiled function's own code; None when its
    code holds no lookup indexed by one of NAMES."""
    if CONTAINER_FILE not in str(event.get("failed_guard") or ""):
        return None
    d, span = ctx.def_frame(event["compile_id"]), ctx.def_span(event["compile_id"])
    lines = ctx.source_lines(d.filename) if span else None
    if not lines:
        return None
    for lineno in range(span[0], min(span[1], len(lines)) + 1):
        found = indexed_by(lines[lineno - 1], names)
        if found is None:
            continue
        box, lookup = found
        kind = ctx.r.guard_value(ctx.run_id, event["compile_id"], f"type(G['{box}'])") or \
            ctx.r.guard_value(ctx.run_id, event["compile_id"], f"type(L['{box}'])") or ""
        return ctx.frame(d.filename, lineno, lines[lineno - 1], evidence="source"), box, \
            lookup, kind.rsplit(".", 1)[-1]
    return None
