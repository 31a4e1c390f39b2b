"""Where code a compile traced branches on whether it is being compiled: `if not
torch.compiler.is_compiling():` (or torch._dynamo.is_compiling, is_dynamo_compiling). A
function that hit the recompile limit runs in eager from then on, and there the other side of
that branch runs: the program's results change from that call on, while every compiled graph
still matches eager (probes45f decode_pos_limit_eager_clamp: an eager-only clamp of the logits
flipped the decoded tokens once the limit hit; explain named the limit and not the change)."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.compiled_source import named, node_frame, traced_nodes

_PREDICATES = ("is_compiling", "is_dynamo_compiling")


def compiling_branch(ctx: Any, cid: str | None) -> dict[str, Any] | None:
    """{filename, lineno, line} of the first `if` (or conditional expression) in the code the
    compile `cid` traced whose test calls an is-compiling predicate; None without one."""
    for sub, path in traced_nodes(ctx, [cid] if cid else None):
        if isinstance(sub, (ast.If, ast.IfExp)) and any(
                isinstance(n, ast.Call) and named(n) in _PREDICATES
                for n in ast.walk(sub.test)):
            return node_frame(ctx, sub, path)
    return None


def eager_fallback_words(ctx: Any, cid: str | None) -> str:
    """The sentence a diagnosis of a function that now runs in eager adds, or ""."""
    branch = compiling_branch(ctx, cid)
    if branch is None:
        return ""
    return (f" In eager, `{branch['line']}` (line {branch['lineno']}) takes its other side: "
            "the code under that test runs differently compiled and in eager, so the "
            "program's results can change from the call that hit the limit on, though every "
            "compiled graph matches eager.")
