"""The higher-order operator a graph break happened inside (issue 29 §1: say what the break
is about). Dynamo's "HOP: Unsafe side effect" names no operator, and its hint only guesses
("If the HOP is activation checkpointing ..."); while torch logs the break, the Unsupported
it raised is being handled (sys.exc_info() holds it) and its traceback passes through the
variable tracker of the operator Dynamo was tracing the body of. Capture reads that
tracker's operator name (`tag_activation_checkpoint`, `cond`, `flex_attention`) then and
queues it as one record of its own just before the break's record, for ingest to keep with
the break. Reads only; never raises (the break's record must be kept whatever happens)."""

from __future__ import annotations

import sys
from typing import Any, Iterator

from compdiag.ingest.own_records import BREAK_HOP

_HOP_FILE = "torch/_dynamo/variables/higher_order_ops.py"
# Tensor.register_hook inside compiled code: Dynamo traces the hook's body as a subgraph (no
# operator of its own; probes34a vit_attn_grad_rollout, a hook writing `self.attn_grad`)
_TENSOR_FILE = "torch/_dynamo/variables/tensor.py"


def hop_of_handled_exception() -> str | None:
    """The name of the innermost higher-order operator whose Dynamo variable tracker is on
    the handled exception's traceback, or on that of the exception it wraps (a frame skip's
    "Failed to handle graph break gracefully" carries the Unsupported it gave up on); None
    when there is none (or it cannot be read)."""
    try:
        return next((found for exc in handled_exceptions()
                     if (found := _hop_on(getattr(exc, "__traceback__", None)))), None)
    except Exception:  # noqa: BLE001 - fail open: a nicety
        return None


def handled_exceptions(limit: int = 4) -> Iterator[BaseException]:
    """The exception being handled, then those it wraps (`__cause__`, else `__context__`),
    `limit` at most: where torch logs a break, the Unsupported it raised (a frame skip's
    re-raise wraps the break it gave up on). Shared with capture/break_stack.py."""
    exc, seen = sys.exc_info()[1], 0
    while exc is not None and seen < limit:
        yield exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1


def _hop_on(tb: Any) -> str | None:
    """The innermost operator's name on one traceback (hop_of_handled_exception)."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "_method_register_hook" and code.co_filename.replace(
                "\\", "/").endswith(_TENSOR_FILE):
            found = "register_hook"  # a tensor hook's body, speculated as a subgraph
        elif code.co_filename.replace("\\", "/").endswith(_HOP_FILE):
            op = getattr(tb.tb_frame.f_locals.get("self"), "value", None)
            name = getattr(op, "_name", None) or getattr(op, "__name__", None)
            if isinstance(name, str) and name:
                found = name
        tb = tb.tb_next
    return found


def queue(capture: Any, compile_id: str | None) -> None:
    """Queue the operator's record, in order before the break's (capture.defer: ingested in
    the backlog with torch's records, no hook of its own per break)."""
    name = hop_of_handled_exception()
    if name:
        capture.defer("break operator", capture.ing.event, BREAK_HOP, compile_id, {}, name)
