"""The user's custom ops a Dynamo-stage failing graph calls, made callable in minify's process.

The op's definition is the user's program, which minify never runs. For the one failure it
can replay without it, an op with no fake implementation (Dynamo stops at it before anything
runs it), a stand-in is registered with the op's recorded schema and no fake implementation
either, so Dynamo raises the same error; its body is never needed (eager values come only
from the nodes before it). An op that had a fake implementation cannot be stood in for."""

from __future__ import annotations

from typing import Any

import torch

from compdiag.formats.op_schema import declared_write_names


class Unavailable(Exception):
    """A custom op minify cannot stand in for (one line)."""


def registered(qualname: str) -> bool:
    ns, _, name = qualname.partition("::")
    return hasattr(getattr(torch.ops, ns), name)


def ensure(doc: dict[str, Any]) -> list[str]:
    """Register a stand-in for every recorded custom op this process lacks; returns their
    names. Raises Unavailable (one line) when an op cannot be stood in for."""
    made = []
    for op in doc.get("custom_ops") or []:
        qualname = op["qualname"]
        if registered(qualname):
            continue
        if op.get("fake") is not False:
            raise Unavailable(f"the graph calls the custom op {qualname}, which only the user's "
                              "program defines (with a fake implementation): minify cannot "
                              "run it outside that program")
        schema = torch._C.parse_schema(op["schema"])
        mutated = declared_write_names(schema)
        signature = op["schema"][op["schema"].index("("):]
        torch.library.custom_op(qualname, _body(qualname), mutates_args=mutated,
                                schema=signature)
        made.append(qualname)
    return made


def _body(qualname: str) -> Any:
    def body(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"compdiag minify: the body of {qualname} is the user's program's")
    # torch names the op's Python function in its errors ("use `NAME.register_fake`")
    body.__name__ = body.__qualname__ = qualname.partition("::")[2]
    return body
