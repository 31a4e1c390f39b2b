"""The frames Dynamo was tracing when a graph break happened (issue 29 §1: the line torch
points at).

torch's "User code traceback" of a break can leave out the user frames it was inlining: in
probes47a asr_decoder_float_causal_mask the break inside nn.MultiheadAttention's mask check
listed the compiled call, torch's `_call_impl` frames and the attention's own forward, but not
the decoder layer's `self.self_attn(...)` line that passed the float mask, nor the loop line
above it, so the deepest user frame was the compiled call. While torch logs the break, the
Unsupported it raised is being handled (sys.exc_info()), and its traceback still holds each
instruction translator Dynamo ran, one per frame it traced (the root and every inlined call),
each stopped at its current line. Capture reads that chain then and queues it as one record
just before the break's (ingest/traced_stacks.py puts the missing frames back). Reads only;
never raises."""

from __future__ import annotations

import json
import linecache
import sys
from typing import Any

from compdiag.capture.break_hop import handled_exceptions
from compdiag.ingest.own_records import BREAK_STACK

_FRAMES = 64  # a chain deeper than this keeps its innermost frames


def traced_chain() -> list[dict[str, Any]]:
    """The frames of every translator on the handled exception's traceback (or on that of the
    exception it wraps: a frame skip's re-raise carries the break it gave up on), outermost
    first, each at its current line; the longest chain found, [] when none."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
    except Exception:  # noqa: BLE001 - another torch: nothing read
        return []
    best: list[Any] = []
    try:
        # the translator that handles the break (the root frame's) is on the live stack, not
        # on the traceback, which starts where the exception was caught
        live, frame = [], sys._getframe(1)
        while frame is not None:
            live.append(frame)
            frame = frame.f_back
        handling = _translators(reversed(live), InstructionTranslatorBase)
        for exc in handled_exceptions():
            frames, tb = [], getattr(exc, "__traceback__", None)
            while tb is not None:
                frames.append(tb.tb_frame)
                tb = tb.tb_next
            chain = _translators(frames, InstructionTranslatorBase)
            if len(chain) > len(best):
                best = chain
        best = [tx for tx in handling if not any(tx is b for b in best)] + best
        return [f for f in map(_frame, best) if f is not None][-_FRAMES:]
    except Exception:  # noqa: BLE001 - fail open: a nicety
        return []


def _translators(frames: Any, translator: type) -> list[Any]:
    """The distinct translators whose methods the frames run, outermost first."""
    out: list[Any] = []
    for frame in frames:
        tx = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if isinstance(tx, translator) and not any(tx is seen for seen in out):
            out.append(tx)
    return out


def _frame(tx: Any) -> dict[str, Any] | None:
    code, line = getattr(tx, "f_code", None), getattr(tx, "lineno", None)
    if code is None or not isinstance(line, int):
        return None
    return {"filename": code.co_filename, "lineno": line, "name": code.co_name,
            "line": linecache.getline(code.co_filename, line).strip()}


def queue(capture: Any, compile_id: str | None) -> None:
    """Queue the chain's record, in order before the break's (as capture/break_hop.py's)."""
    chain = traced_chain()
    if chain:
        capture.defer("break stack", capture.ing.event, BREAK_STACK, compile_id, {},
                      json.dumps(chain))
