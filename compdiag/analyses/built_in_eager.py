"""A graph break at a `with` statement whose context manager Dynamo could not enter because
the object was built in eager: its class's own `__init__`, or the call at the `with` line
that makes it, broke the graph first (issue 29 §2, the cause above its consequence).

probes43a ctx_section_init_print_skip (pytorch#191523): `with Section("attn"):` where
`Section.__init__` prints. The print broke the graph (GB0059, line 17), so the constructor
ran in eager, and Dynamo, resuming with an object made outside its trace, could not enter it
(GB0142 "Unsupported context manager", at the `with` line). The second break was a problem
of its own with its own fix (move the `with` outside the compiled function), though guarding
the print removed all three breaks. The relation reads stored facts: the class the `with`
line calls, and the user's source, where the first break's line lies inside that class."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.diagnosis import Diagnosis

# GB0142's type (torch 2.9+), and what older ones say for the same refusal
CONTEXT_MANAGER_WORDS = ("unsupported context manager", "how to enter a")
_WITH_CALL = re.compile(r"^\s*(?:async\s+)?with\s+(?:[\w.]+\.)?(\w+)\s*\(")


def built_in_eager(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """effect: the refusal to enter a context manager, at a `with NAME(...)` line; cause: a
    break inside class NAME's methods, in the same file."""
    said = f"{getattr(effect.details, 'gb_type', '')} {effect.reason}".lower()
    if not any(w in said for w in CONTEXT_MANAGER_WORDS):
        return False
    at, inside = effect.user_frame, cause.user_frame
    m = _WITH_CALL.match(at.line or "") if at else None
    if m is None or not inside or not inside.filename or not inside.lineno:
        return False
    if effect is not cause and (inside.filename, inside.lineno) == (at.filename, at.lineno):
        # the `with` line's own call broke (probes45a mkldnn_flags_conv_eval:
        # `torch.backends.mkldnn.flags(...)`, a torch function returning a context manager,
        # GB0208), so the manager was built in eager and the resumed code could not enter it
        cause_said = f"{getattr(cause.details, 'gb_type', '')} {cause.reason}".lower()
        return not any(w in cause_said for w in CONTEXT_MANAGER_WORDS)
    return _in_class(ctx.source_text(inside.filename), m.group(1), inside.lineno)


def _in_class(text: str | None, name: str, lineno: int) -> bool:
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.ClassDef) and node.name == name
               and node.lineno <= lineno <= (node.end_lineno or node.lineno)
               for node in ast.walk(tree))


CONTEXT_MANAGER_FIX = (
    "Dynamo cannot enter this context manager: move the `with` block (files, locks, "
    "profilers) outside the compiled function and compile only the tensor code inside it. "
    "torch's own managers (no_grad, autocast, set_grad_enabled) are supported when created "
    "inside the compiled function.")
# A break on the call a `with` line makes (`with open(...)`, `with flags(...)`): the manager is
# then built in eager and the resumed code cannot enter it (built_in_eager above folds that
# second break under this one), so the `with` block is what moves (probes45a
# mkldnn_flags_conv_eval; corpus gb_context_manager)
WITH_CALL_FIX = (
    "Dynamo cannot trace the call that makes this context manager, and cannot enter one made "
    "outside its trace: move the `with` block (files, locks, profilers, backend flags) "
    "outside the compiled function and compile only the tensor code inside it. torch's own "
    "managers (no_grad, autocast, set_grad_enabled) are supported when created inside the "
    "compiled function.")
_WITH_LINE = re.compile(r"^\s*(?:async\s+)?with\b")
_CALL_BREAKS = ("Failed to trace builtin operator", "marked as skipped",
                "returned non-Tensor", "Unsupported context manager")


def with_call(gb_type: str, line: str | None) -> bool:
    """Whether a break of `gb_type` at the user's `line` is on the call a `with` line makes."""
    return bool(_WITH_LINE.match(line or "")) and any(w in gb_type for w in _CALL_BREAKS)
