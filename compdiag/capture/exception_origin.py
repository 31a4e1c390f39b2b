"""Who raised the exception of a fake-tensor run (issue 29 §1/§3).

While tracing, Dynamo runs every op on fake tensors (`torch._dynamo.utils.run_node`). When
that raises, Dynamo re-raises its own error in place of the original (a TorchRuntimeError
"RuntimeError when making fake tensor call", raised `from None`), so the exception that
reaches the program no longer says which kernel raised, or whether it was torch's own code,
an input check or a fake implementation the program registered for a custom op. Those decide
who is at fault: the same input check fails in eager (the user's code, or the user's own
try/except catches it there); an assertion inside torch's meta kernel is torch's bug on a line
eager runs; a custom op's fake implementation is the program's to fix.

So capture wraps `run_node` and, when it raises (rare: a graph break or a failure follows),
keeps the original exception's type, classes and message, the op whose kernel raised, and
which code raised it (ingest/parse_failures.exception_origin), as one record of compdiag's own; ingest joins it to the
failure row of the same compile whose text it is (ingest/ingestor.py). Reads only; a fault
is a run warning."""

from __future__ import annotations

import json
import linecache
from typing import Any

from compdiag.capture.compile_context import current_compile_id
from compdiag.formats.user_code import is_user_file
from compdiag.ingest.own_records import FAKE_RUN_KIND
from compdiag.ingest.parsers import exception_origin
def install(capture: Any) -> None:
    import torch._dynamo.utils as dynamo_utils

    original = getattr(dynamo_utils, "run_node", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def run_node(*args: Any, **kwargs: Any) -> Any:
        try:
            return original(*args, **kwargs)
        except Exception as exc:
            if not capture.paused_depth:
                capture.guarded("exception origin", _record, capture, args, kwargs, exc)
            raise

    run_node._compdiag = True  # type: ignore[attr-defined]
    run_node.__wrapped__ = original  # type: ignore[attr-defined]
    dynamo_utils.run_node = run_node


def _record(capture: Any, args: tuple, kwargs: dict, exc: BaseException) -> None:
    fact = origin_of(exc, kwargs.get("node", args[1] if len(args) > 1 else None))
    if fact is not None:
        capture.ing.event(FAKE_RUN_KIND, current_compile_id(), {"origin": fact["origin"]},
                          payload=json.dumps(fact, default=repr))


def original_exception(exc: BaseException) -> BaseException | None:
    """The exception the op raised: run_node re-raises it as a RuntimeError `from` it (or as
    itself: an IndexError); a graph break Dynamo raises on purpose is not one."""
    if type(exc).__name__ == "Unsupported" or type(exc).__module__.startswith("torch._dynamo"):
        return None
    cause = exc.__cause__
    return cause if cause is not None else exc


def origin_of(exc: BaseException, node: Any) -> dict[str, Any] | None:
    """What one exception out of run_node says of its origin, or None when it is Dynamo's own."""
    original = original_exception(exc)
    if original is None:
        return None
    frames = _frames(original.__traceback__)
    kernel_op = next((f["op"] for f in reversed(frames) if f.get("op")), None)
    names = [c.__name__ for c in type(original).__mro__]
    origin, raised_in = exception_origin(names, frames)
    # the program's own code the kernel ran (a custom op's fake implementation): the line
    # to change, deeper than the op's call (probes39d cop_fake_numpy_impl)
    mine = [f for f in frames if is_user_file(f["filename"])]
    user_frame = {"filename": mine[-1]["filename"], "lineno": mine[-1]["lineno"],
                  "line": linecache.getline(mine[-1]["filename"], mine[-1]["lineno"]).strip()
                  or None} if mine else None
    return {"op": kernel_op or _target_name(getattr(node, "target", None)),
            "user_frame": user_frame,
            "node_target": _target_name(getattr(node, "target", None)),
            "exc_type": type(original).__name__,
            "exc_types": names,
            "message": str(original)[:4000], "origin": origin, "raised_in": raised_in}


def _frames(tb: Any) -> list[dict[str, Any]]:
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        func = tb.tb_frame.f_locals.get("func") if "fake_tensor" in code.co_filename else None
        out.append({"filename": code.co_filename.replace("\\", "/"), "lineno": tb.tb_lineno,
                    "name": code.co_name,
                    "op": str(func) if type(func).__name__ == "OpOverload" else None})
        tb = tb.tb_next
    return out


def _target_name(target: Any) -> str | None:
    """An FX node's target as torch prints it: `aten.x.default`, `Tensor.method`, or the
    function's qualified name."""
    if target is None:
        return None
    if isinstance(target, str):
        return f"Tensor.{target}"
    if type(target).__name__ in ("OpOverload", "OpOverloadPacket"):
        return str(target)
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    return f"{module}.{name}" if module and name else (name or repr(target))
