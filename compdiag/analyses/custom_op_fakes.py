"""The user's fake implementation a graph break happened in (issue 29 §1, the line torch does
not point at).

Dynamo runs a custom op (`torch.library.custom_op`) on fake tensors through the fake
implementation the program registered (`@op.register_fake`, `torch.library.register_fake(
"ns::op")`); an op inside it whose output size depends on the data (`torch.unique(ids).numel()`)
breaks the graph, and torch's words point at its own `CustomOpDef.__call__` and the user's call
of the op, never at the fake function (probes29a dedup_ids_fake). The program's kept source
says where that function is: the registration for the op the user's line calls, and in its
body the line that calls the op torch names."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_matches
from compdiag.formats.code_text import called

CUSTOM_OPS_FILE = "torch/_library/custom_ops.py"
# `aten._unique2.default` -> `unique`: the Python name a program writes for the ATen op
_ATEN = re.compile(r"aten\.(_?)([a-z]+?)(\d*)(?:_|\.|\b)")
_BODY_LINES = 40
# The Python a program writes for an ATen op whose name it never spells (probes36c
# cop_fake_boolmask_break: `scores[scores > thresh]` is aten.nonzero, and the break was put at
# the registration): a boolean mask's selection, one-argument `torch.where`, a scalar read.
_WRITTEN = {
    "nonzero": r"\b(?:nonzero|argwhere|masked_select)\s*\(|\bwhere\s*\([^,()]*\)"
               r"|\[[^\]]*(?:[<>]=?|[=!]=|~|\bisin\b|\bisnan\b)[^\]]*\]",
    "local": r"\.(?:item|tolist)\s*\(",
}


def fake_line(ctx: Any, cid: str | None, lib_frame: dict[str, Any] | None, line: str | None,
              aten_op: str | None) -> tuple[UserFrame, str] | None:
    """(the line of the user's fake implementation that calls `aten_op`, else its
    registration line; the custom op's name) for a break inside torch's custom-op call made
    at the user's `line`; None when the break is elsewhere or the source does not show it."""
    if not lib_frame or not str(lib_frame.get("filename") or "").replace(
            "\\", "/").endswith(CUSTOM_OPS_FILE):
        return None
    callee = called(line or "")
    name = callee.rsplit(".", 1)[-1] if callee else None
    if not name:
        return None
    at = _registration(ctx, cid, name)
    if at is None:
        return None
    m = _ATEN.search(aten_op or "")
    stem = m.group(2) if m else None
    for lineno, text in _fake_body(ctx, at):
        if stem and re.search(_WRITTEN.get(stem, rf"\b{stem}\s*\("), text):
            return ctx.frame(at.filename, lineno, text.strip(), evidence="source"), name
    return at, name


def _registration(ctx: Any, cid: str | None, name: str) -> UserFrame | None:
    """The line that registers a fake implementation for custom op `name`."""
    registered = source_matches(ctx, cid, re.compile(
        rf"@{re.escape(name)}\.register_fake\b|register_fake\(\s*['\"][\w.]*::{re.escape(name)}"
        r"['\"]"))
    return registered[0] if registered else None


def _fake_body(ctx: Any, at: UserFrame) -> Any:
    """(line number, text) of the lines after a registration, to the end of the function."""
    lines = ctx.source_lines(at.filename) or []
    for k in range(at.lineno, min(len(lines), at.lineno + _BODY_LINES)):
        text = lines[k]  # the lines after the registration (0-based k is line k + 1)
        if k > at.lineno + 1 and text.strip() and not text[:1].isspace():
            break  # the function's body ended
        yield k + 1, text


# probes41b cop_fake_int_count_const: a custom op returning `(tensor, int)` whose fake
# returned `x.numel()` for the count; Dynamo took the fake's number as a constant of the graph
# (768 every call), and the compiled division differed from eager's, said as a silent bug of
# torch's tracing. The count's fake must be a new unbacked size (`ctx.new_dynamic_size()`).
FAKE_INT_SAID = ("custom op {op}'s fake implementation (line {lineno}) returns "
                 "`{value}` for a number its real kernel computes from the data, so the graph "
                 "holds that one number")
FAKE_INT_EXPLANATION = (
    "While tracing, Dynamo runs a custom op through its fake implementation, and a Python "
    "number the fake returns is a constant of the graph: the real kernel's count, computed "
    "from the data on each call, is never read by the compiled code, which uses the fake's "
    "number every time. Eager runs the real kernel and gets the real count.")
FAKE_INT_FIX = ("Return a new symbolic size from the fake for a number that depends on the "
                "data: `ctx = torch.library.get_ctx(); n = ctx.new_dynamic_size()` and return "
                "`n` (the real count then flows into the compiled code), or return the count as "
                "a 0-d tensor instead of an int.")
# a fake's return of a tuple whose item is a Python number made from sizes or a literal
_SIZE_NUMBER = re.compile(r"^(?:len\(.+\)|[\w.]+\.(?:numel|dim)\(\)|[\w.]+\.(?:size\(\d*\)|"
                          r"shape\[\d+\])|\d+)$")


def _returns_int(source: str, name: str) -> bool:
    """Whether the function `name` in `source` is annotated to return an int (alone or in a
    tuple)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name and node.returns:
            return bool(re.search(r"\bint\b", ast.unparse(node.returns)))
    return False


def fake_constant(ctx: Any, cid: str | None) -> tuple[UserFrame, str, str] | None:
    """(the fake's return line, the custom op, the value it returns) where a custom op the
    compile's graph calls has a fake that returns a size-made number for an `int` its schema
    returns; None where none does."""
    ops = {str(n.get("target") or "").split(".")[1] for n in ctx.graph_nodes(cid)
           if str(n.get("target") or "").count(".") >= 2
           and str(n.get("target")).split(".")[0] not in ("aten", "prims", "_c10d_functional",
                                                           "higher_order", "inductor")}
    for name in sorted(ops):
        at = _registration(ctx, cid, name)
        if at is None or not _returns_int(ctx.source_text(at.filename) or "", name):
            continue  # no fake of the program's, or the op returns no number
        for lineno, text in _fake_body(ctx, at):
            m = re.match(r"\s*return\s+(.+)$", text.split("#")[0])
            if m is None:
                continue
            body = m.group(1).strip()
            if body.startswith("(") and body.endswith(")"):
                body = body[1:-1]
            items = [i.strip() for i in body.split(",")]
            value = next((i for i in items if _SIZE_NUMBER.search(i)), None)
            if value is not None:
                return ctx.frame(at.filename, lineno, text.strip(), evidence="source"), name, value
    return None
