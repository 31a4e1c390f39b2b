"""The name a user knows a compile by, wherever compiles are listed (show, diff, the TUI).

torch compiles a module of torch.nn's own (an nn.Sequential under torch.compile) through a
wrapper of its own (torch/_dynamo/external_utils.py's `inner`), so the compiled code object is
torch's: the compile is named by the module's class as capture saw it at the call
(`Sequential.forward`, RunContext.fn_name), at the user's line that called it. A library
decorator's wrapper (`wrapped_func`) is named by the function it wraps, as capture saw it."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.context import RunContext
from compdiag.formats.compiled_code import TORCH_WRAPPERS
from compdiag.store.reader import Reader


def compile_names(reader: Reader, run_id: int, rows: list[dict[str, Any]]
                  ) -> dict[str, dict[str, Any]]:
    """{compile_id: {function, called_at?}} for the compiles of `rows` whose code object is
    one of torch's wrappers or a library wrapper of one function; the others keep their code
    object's name."""
    ctx = RunContext(reader, run_id)
    wrapped = [c for c in rows if c.get("co_name") in TORCH_WRAPPERS
               or (ctx.call(c["compile_id"]).get("wraps") and c.get("co_name"))]
    if not wrapped:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for c in wrapped:
        name = ctx.fn_name(c["compile_id"])
        if not name or name == c["co_name"]:
            continue
        doc: dict[str, Any] = {"function": name}
        chain = ctx.call_chain(c["compile_id"])
        if chain:
            doc["called_at"] = {"filename": chain[-1].filename, "lineno": chain[-1].lineno}
        out[c["compile_id"]] = doc
    return out


def as_user_knows(reader: Reader, run_id: int, rows: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """The compile rows with co_name, filename and lineno as the user knows them (copies,
    where compile_names renames one): what diff matches two runs' compiles by."""
    names = compile_names(reader, run_id, rows)
    out = []
    for c in rows:
        name = names.get(c["compile_id"])
        if name is None:
            out.append(c)
            continue
        at = name.get("called_at") or c
        out.append({**c, "co_name": name["function"], "filename": at["filename"],
                    "lineno": at["lineno"]})
    return out
