"""The whole-function check's verdict for a function eager refuses to run where its compiled
version returned a value (capture/function_accuracy.py), located at the user line eager raised
at and the call that line was making."""

from __future__ import annotations

import ast
import linecache
import traceback as tb_module
from typing import Any

from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck
from compdiag.formats.user_code import is_user_file


def eager_rejects(name: str, exc: BaseException,
                  graphs: list[tuple[str | None, Any, Any, bool]],
                  transforms: list[str]) -> GraphCheck | None:
    """The function in eager raised where the compiled one returned a value: compiled code
    accepted what eager rejects (pytorch#149911: a `.data` write inside torch.func.grad, which
    eager refuses and Dynamo traced without the check), at the user line eager raised at. None
    when no user line is on the exception's stack (nothing of the program's to point at)."""
    frames = [f for f in tb_module.extract_tb(exc.__traceback__) if is_user_file(f.filename)]
    if not frames:
        return None
    message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300].rstrip(".")
    op = called_at(frames[-1])
    if op and op not in message:  # the call the exception came out of: a C++ kernel's
        message += f" (in {op})"  # words name no op, and a line may make several calls
    out = OutputCheck("result", False, None, None, {
        "verdict": "traced_accepts", "eager_error": message, "function": name,
        "reason": f"eager raised {message}; the compiled {name}() returned a value"})
    if transforms:
        out.detail["transforms"] = transforms
    at = frames[-1]
    node = {"node": None, "op": op, "user_frame": {"filename": at.filename,
                                                      "lineno": at.lineno, "line": at.line}}
    return GraphCheck(graphs[-1][0], [out], divergent_node=node)


def called_at(frame: tb_module.FrameSummary) -> str | None:
    """The name of the call a traceback's frame was making, from the columns Python 3.11
    keeps for it: `repeat_interleave` in `ctx = self.ctx(g).repeat_interleave(n, ...)`
    (probes35e graph_expand_stale_size: eager's "allocated size does not match required
    size" named no op, and its line made two calls). None without columns or a call."""
    lineno, end, col, end_col = (getattr(frame, k, None)
                                 for k in ("lineno", "end_lineno", "colno", "end_colno"))
    if not (lineno and end and col is not None and end_col is not None):
        return None
    lines = [linecache.getline(frame.filename, n) for n in range(lineno, end + 1)]
    if not all(lines):
        return None
    lines[-1] = lines[-1].encode()[:end_col].decode(errors="ignore")
    lines[0] = lines[0].encode()[col:].decode(errors="ignore")
    try:
        tree = ast.parse("".join(lines).strip(), mode="eval").body
    except SyntaxError:
        return None
    func = tree.func if isinstance(tree, ast.Call) else None
    return func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else None
