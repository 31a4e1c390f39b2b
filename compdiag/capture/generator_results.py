"""A generator that the compiled function returns, against the same generator in eager
(`run --check-accuracy`, capture/function_accuracy.py's replay).

Dynamo runs a generator that leaves the compiled region to its end while it traces, and hands
the program an iterator over what it yielded (pytorch/pytorch#198190). The items match eager's,
so no graph and no compared tensor differs; what the generator `return`s (the StopIteration
value that `yield from` and a `try/except StopIteration` read) is None in the compiled program
(probes47b stream_scorer_generator_return: an anomaly total read from StopIteration.value came
back None, with no error and no graph break). So the eager replay runs a generator it got to
its end, inside the replay's own guards (prints discarded, random state and globals put back),
and the verdict compares what the two return."""

from __future__ import annotations

import dis
import inspect
import linecache
from types import CodeType
from typing import Any, NamedTuple

import torch

from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck

# items a replayed generator may yield before the replay gives up on it (a stream of batches
# could be long; what it returns is what is compared, its items are not kept)
_ITEMS = 100_000


class Drained(NamedTuple):
    """An eager generator run to its end: how many items it yielded and what it returned."""

    code: CodeType
    items: int
    value: Any


def drain(result: Any) -> Any:
    """`result` run to its end when it is a generator (a Drained), else `result` itself."""
    if not inspect.isgenerator(result):
        return result
    items = 0
    try:
        while items < _ITEMS:
            next(result)
            items += 1
    except StopIteration as stop:
        return Drained(result.gi_code, items, stop.value)
    result.close()
    return Drained(result.gi_code, items, None)  # too long to follow: nothing compared


def return_frame(code: CodeType) -> dict[str, Any] | None:
    """The user line of the generator's first `return` with a value (where what it returns
    is computed), None when it has none."""
    last = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("RETURN_VALUE", "RETURN_CONST") and last is not None and \
                not _none(ins if ins.opname == "RETURN_CONST" else last):
            line = ins.positions.lineno if ins.positions else None
            if line:
                return {"filename": code.co_filename, "lineno": line,
                        "line": linecache.getline(code.co_filename, line).strip()}
        last = ins
    return None


def _none(ins: dis.Instruction) -> bool:
    return ins.opname in ("LOAD_CONST", "RETURN_CONST") and ins.argval is None


def lost_return(eager: Drained, compiled: Any, graphs: list[tuple[str | None, Any, Any, bool]],
                name: str, call: int) -> GraphCheck | None:
    """The verdict of a generator whose return value the compiled call lost (None: what it
    returns is None in eager too, or the compiled call returned a generator of its own, which
    is the program's to run and never run here)."""
    if inspect.isgenerator(compiled) or eager.value is None:
        return None
    shown = eager.value
    if isinstance(shown, torch.Tensor) and shown.numel() <= 4:
        shown = str(shown.detach())
    elif isinstance(shown, torch.Tensor):
        shown = f"a {shown.dtype} tensor of shape {tuple(shown.shape)}".replace("torch.", "")
    detail: dict[str, Any] = {"verdict": "lost_generator_return", "function": name,
                              "eager": str(shown)[:120], "compiled": "None",
                              "returned_as": type(compiled).__name__, "items": eager.items}
    frame = return_frame(eager.code)
    if frame:
        detail["user_frame"] = frame
    if call > 1:
        detail["call"] = call
    node = {"node": None, "op": None, "user_frame": frame} if frame else None
    return GraphCheck(graphs[-1][0] if graphs else None,
                      [OutputCheck("return value", False, None, None, detail)],
                      divergent_node=node)
