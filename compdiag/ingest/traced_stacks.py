"""A graph break's user stack with the frames Dynamo was tracing put back (capture/
break_stack.py's record): torch's "User code traceback" can leave out the user frames it was
inlining, so the deepest user frame it lists is an outer call (the compiled call, a loop line)
rather than the line that reached the code that broke (probes47a asr_decoder_float_causal_mask:
the decoder layer's attention call that passed a float mask)."""

from __future__ import annotations

import json
from typing import Any

from compdiag.formats.user_code import is_user_file


def parse(payload: str | None) -> list[dict[str, Any]] | None:
    """The record's frames, None when malformed."""
    try:
        frames = json.loads(payload or "")
    except ValueError:
        return None
    if not isinstance(frames, list) or not all(
            isinstance(f, dict) and isinstance(f.get("filename"), str)
            and isinstance(f.get("lineno"), int) for f in frames):
        return None
    return frames


def with_traced(stack: list[dict[str, Any]] | None, traced: list[dict[str, Any]] | None
                ) -> list[dict[str, Any]] | None:
    """`stack` (torch's frames, outermost first) with the traced chain in place of its tail,
    when the chain ends where torch's stack ends (the same break) and holds user frames torch
    left out; else `stack` unchanged."""
    if not stack or not traced:
        return stack
    keys = [(f.get("filename"), f.get("lineno")) for f in stack]
    chain = [(f["filename"], f["lineno"]) for f in traced]
    if chain[-1] != keys[-1] or not any(
            key not in keys and is_user_file(key[0]) for key in chain):
        return stack
    joint = set(chain)
    at = next(i for i, key in enumerate(keys) if key in joint)
    return stack[:at] + [{"filename": f["filename"], "lineno": f["lineno"],
                          "line": f.get("line") or None, "name": f.get("name")}
                         for f in traced]
