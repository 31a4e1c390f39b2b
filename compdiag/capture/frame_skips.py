"""Frames Dynamo declined to trace at all (issue 29 §3: no silent end). A compiled function
first called while a TorchDispatchMode is active (FlopCounterMode, a debug mode) or with
Dynamo disabled runs in eager with no compile, no graph break and no log line above DEBUG, so
a run could end "no problems found" with nothing compiled. torch says why in one place at
every level: `add_skip_reason(reason, frame)`, which convert_frame calls for each skip. Capture
wraps convert_frame's reference to it and keeps each reason once per user call (the line
running then), as a `frame_skip` record, for the reasons in NEWS. An older torch without the
function: nothing is hooked."""

from __future__ import annotations

from typing import Any, Callable

from compdiag.ingest.own_records import FRAME_SKIP

# The skip reasons that leave a user's compiled call in eager for a reason outside the code
# (torch's words, 2.11-2.13). The others are routine or reported elsewhere: frames Dynamo never
# meant to trace (skipfiles, generated code, no tensors, torch.compiler.disable), and skips a
# graph break or a suppressed error causes (the trace records those).
NEWS = ("dispatch mode present", "Dynamo tracing is disabled", "TORCHDYNAMO_DEBUG_FUNCTION")


def install(capture: Any, call_line: Callable[[], Any]) -> None:
    """`call_line()`: the user's line that called the compiled function, from the live stack."""
    from torch._dynamo import convert_frame

    original = getattr(convert_frame, "add_skip_reason", None)
    if original is None or getattr(original, "_compdiag", False):
        return
    seen: set[tuple[Any, str]] = set()

    def add_skip_reason(reason: Any, frame: Any) -> Any:
        text = str(reason)
        if any(w in text for w in NEWS) and not capture.paused_depth:
            capture.guarded("frame skip", _record, capture, text, frame, call_line, seen)
        return original(reason, frame)

    add_skip_reason._compdiag = True  # type: ignore[attr-defined]
    convert_frame.add_skip_reason = add_skip_reason


def _record(capture: Any, reason: str, frame: Any, call_line: Callable[[], Any],
            seen: set[tuple[Any, ...]]) -> None:
    """Once per (reason, user call): one call skips several frames at once (torch's wrappers,
    the module's _call_impl, its forward), the outermost first."""
    call = call_line()
    key = (reason, (call or {}).get("filename"), (call or {}).get("lineno"))
    if key in seen:
        return
    seen.add(key)
    code = frame.f_code
    capture.ing.event(FRAME_SKIP, None,
                      {"name": code.co_name, "filename": code.co_filename,
                       "firstlineno": code.co_firstlineno, "call": call}, reason)
