"""A `mark_dynamic` made where a DataLoader builds the batch (issue 29 §2: the cause above its
consequence).

The mark is an attribute of one tensor object. A batch built in a DataLoader worker process
(`num_workers > 0`) reaches the main process as a copy rebuilt from shared memory, and a pinned
batch (`pin_memory=True`) is a new tensor too; a mark made in `__getitem__` is on a sample the
default collate then stacks into a new batch. Each way the compiled call gets a tensor with no
mark, so its size is static and every new size compiles again, while the source shows the
mark (probes46b collate_mark_dynamic_workers_mlp: "a `mark_dynamic` of the size is kept under
it", said of `dynamic=False`, which the mark never reached). Read from the program's source."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.lost_marks import is_mark
from compdiag.formats.code_text import callee

REASON = ("; `{mark}` (line {lineno}) marks the batch in {where}, and the batch reaches the "
          "compiled call without the mark")
EXPLANATION = ("mark_dynamic marks one tensor object, and line {lineno} runs in {where}: "
               "{how}, which carries no mark, so the compiled function sees a static size and "
               "every new size compiles again.")
FIX = ("Mark the tensor the compiled call receives, in the loop that calls it: "
       "`torch._dynamo.mark_dynamic({arg}, {dim})` just before line {call_lineno} (and drop the "
       "mark at line {lineno}).")
_WORKERS = ("a DataLoader worker process ({workers})", "the worker's batch comes to the main "
            "process as a copy rebuilt from shared memory")
_PINNED = ("the DataLoader's collate_fn, with `pin_memory=True`", "pinning makes a new tensor")
_SAMPLE = ("the Dataset's `__getitem__`", "the DataLoader's collate stacks the samples into a "
           "new batch tensor")


def worker_mark(ctx: Any, call: Any) -> dict[str, Any] | None:
    """{mark, lineno, dim, where, how, arg, call_lineno} where the program marks a tensor only
    inside a DataLoader's collate_fn run in workers or pinned, or a Dataset's __getitem__, and
    the compiled call `call` (a UserFrame) passes a name; None otherwise."""
    if call is None or not call.filename or not call.lineno:
        return None
    try:
        tree = ast.parse(ctx.source_text(call.filename) or "")
    except (SyntaxError, ValueError):
        return None
    arg = _passed_name(call.line or "")
    marks = {fn.name: m for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
             if (m := _mark_in(fn)) is not None}
    if arg is None or not marks or _marked_in_main(tree, marks):
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and callee(node).rsplit(".", 1)[-1] == "DataLoader"):
            continue
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        collate = kw.get("collate_fn")
        mark = marks.get(collate.id) if isinstance(collate, ast.Name) else None
        workers = kw.get("num_workers")
        where = how = None
        if mark is not None and workers is not None and not _is_zero(workers):
            where, how = _WORKERS[0].format(workers=f"num_workers={ast.unparse(workers)}"), \
                _WORKERS[1]
        elif mark is not None and _is_true(kw.get("pin_memory")):
            where, how = _PINNED
        elif mark is None and "__getitem__" in marks and collate is None:
            mark, (where, how) = marks["__getitem__"], _SAMPLE
        if where is not None:
            line, dim, text = mark
            return {"mark": text, "lineno": line, "dim": dim,
                    "where": where, "how": how, "arg": arg, "call_lineno": call.lineno}
    return None


def _mark_in(fn: ast.FunctionDef) -> tuple[int, str, str] | None:
    """(line, dimension, the call as code) of the function's first mark, or None."""
    for node in ast.walk(fn):
        if is_mark(node):
            return node.lineno, ast.unparse(node.args[1]) if len(node.args) > 1 else "0", \
                ast.unparse(node)
    return None


def _marked_in_main(tree: ast.Module, marks: dict[str, tuple[int, str, str]]) -> bool:
    """Whether a mark is made outside the functions found (the main loop marks too)."""
    inside = {m[0] for m in marks.values()}
    return any(is_mark(n) and n.lineno not in inside for n in ast.walk(tree))


def _passed_name(line: str) -> str | None:
    try:
        tree = ast.parse(line.strip().rstrip(":") or "None")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            return node.args[0].id
    return None


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True

