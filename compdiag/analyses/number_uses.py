"""Where a compiled function takes a guarded Python number only as a Python number: an
argument no tensor can stand for (a size, a count, `int(...)` of it, an op with no Tensor
overload for it). There the usual fix for a number that recompiles at each value, "pass it as
a tensor", breaks the graph instead (probes43g gradual_prune_kthvalue_sparsity_recompile:
`k = max(1, int(sparsity * w.numel()))` for `torch.kthvalue`; ema_foreach_lerp_warmup_recompile:
`torch._foreach_lerp_(..., weight=1.0 - decay)`, whose weight has no Tensor overload: both
fixes applied gave a graph break on `_local_scalar_dense`)."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_matches

# torch calls that take a number only as a Python number (a size, a count, a scale): a tensor
# cannot stand for it there (recompile_causes.NUMBER_ONLY is made of them, and upsample*)
NUMBER_ONLY_OPS = ("interpolate", "repeat", "repeat_interleave", "one_hot", "topk", "kthvalue",
                   "matrix_power", "roll", "narrow", "chunk", "split", "tile", "unfold",
                   "arange", "linspace", "zeros", "ones", "full", "empty", "randn", "rand",
                   "randint")
# with the builtins that read a tensor's value and the foreach ops without a Tensor overload
# for it
NUMBER_ONLY_CALLS = frozenset(NUMBER_ONLY_OPS + (
    "int", "round", "float", "max", "min", "range", "_foreach_lerp_", "_foreach_lerp"))
# what computes the same with tensors, where one is known
ALTERNATIVES = {
    "_foreach_lerp_": "`torch._foreach_mul_` and `torch._foreach_add_` take the number as a "
                      "0-d tensor (their Tensor overloads) in place of `_foreach_lerp_`",
    "kthvalue": "a threshold from `torch.quantile(x, q)` with `q` a tensor needs no count",
}


def number_only_use(ctx: Any, cid: str | None, name: str) -> tuple[UserFrame, str] | None:
    """(the line, the call) of the first line of the compiled code whose call in
    NUMBER_ONLY_CALLS takes `name` in its arguments; None where no line does."""
    if not name or not name.isidentifier():
        return None
    for frame in source_matches(ctx, cid, re.compile(rf"\b{re.escape(name)}\b")):
        call = _number_only_call(frame.line or "", name)
        if call is not None:
            return frame, call
    return None


def _number_only_call(line: str, name: str) -> str | None:
    text = line.strip().rstrip(":")
    for candidate in (text, text.split("=", 1)[-1]):
        try:
            tree = ast.parse(candidate.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else f.id \
                if isinstance(f, ast.Name) else None
            if called not in NUMBER_ONLY_CALLS:
                continue
            args = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(n, ast.Name) and n.id == name
                   for a in args for n in ast.walk(a)):
                return called
        return None
    return None
