"""Frames Dynamo declined to trace at all (issue 29 §3: no silent end). A compiled function
first called while a TorchDispatchMode is active (FlopCounterMode, a debug mode) or with
Dynamo disabled runs in eager with no compile, no graph break and no log line above DEBUG, so
a run could end "no problems found" with nothing compiled. torch says why in one place at
every level: `add_skip_reason(reason, frame)`, which convert_frame calls for each skip. Capture
wraps convert_frame's reference to it and keeps each reason once per user call (the line
running then), as a `frame_skip` record, for the reasons in NEWS, and for an error Dynamo
suppressed before any compile started (a generator function compiled: "Attempt to trace
generator"), with that error in torch's words (kept from convert_frame's `format_error_msg`,
which formats it just before the skip). An older torch without the functions: nothing is
hooked."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from compdiag.ingest.own_records import FRAME_SKIP, SKIPFILES

# The skip reasons that leave a user's compiled call in eager for a reason outside the code
# (torch's words, 2.11-2.13). The others are routine or reported elsewhere: frames Dynamo never
# meant to trace (skipfiles, generated code, no tensors, torch.compiler.disable), and skips a
# graph break or a suppressed error causes (the trace records those).
NEWS = ("dispatch mode present", "Dynamo tracing is disabled", "TORCHDYNAMO_DEBUG_FUNCTION")
# The skip after Dynamo suppressed an error (an Unsupported raised before any compile started,
# e.g. "Attempt to trace generator": no trace record, no graph break says it).
SUPPRESSED = "an error was suppressed during compilation"


# code object -> torch's words for the error convert_frame last formatted for it, where no
# compile had started (one table per process, as convert_frame's functions are patched once;
# words, not the exception, which would keep Dynamo's frames alive).
_SUPPRESSED: dict[Any, str] = {}


def _keep_suppressed(convert_frame: Any) -> None:
    """convert_frame formats the error it is about to suppress with `format_error_msg(exc,
    code, ...)` just before it returns the skip: keep that exception per code object for the
    skip's record (the last few only)."""
    original = getattr(convert_frame, "format_error_msg", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def format_error_msg(exc: Any, code: Any, *args: Any, **kwargs: Any) -> Any:
        try:  # fail open: compdiag's bookkeeping never reaches the program
            if isinstance(exc, BaseException) and getattr(exc, "compile_id", None) is None:
                _SUPPRESSED[code] = _said(exc)
                while len(_SUPPRESSED) > 8:
                    _SUPPRESSED.pop(next(iter(_SUPPRESSED)), None)
        except Exception:  # noqa: BLE001, S110
            pass
        return original(exc, code, *args, **kwargs)

    format_error_msg._compdiag = True  # type: ignore[attr-defined]
    convert_frame.format_error_msg = format_error_msg


# Dynamo's own files between this hook and the frame being converted (the callback's callers).
_CONVERTING = ("torch/_dynamo/convert_frame.py", "compdiag/capture/frame_skips.py")
_WRAPPER = "torch/_dynamo/eval_frame.py"


def _called_by_compile_wrapper() -> bool:
    """Whether the frame Dynamo is converting was called by torch.compile's wrapper itself
    (the user's compiled function), not by code running in eager after a break: Dynamo tries
    every frame that runs under its callback, and rejects library generators (a module's
    `parameters()`, inspect's helpers) by design, every time."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.replace(os.sep, "/").endswith(_CONVERTING):
        f = f.f_back
    return f is not None and f.f_code.co_filename.replace(os.sep, "/").endswith(_WRAPPER)


def _torch_entry(frame: Any) -> str | None:
    """`Sequential._call_impl` where `frame` is the very callable torch.compile wrapped (the
    `fn` of eval_frame's wrapper that called it, not a helper the wrapper runs first) and it
    belongs to a class of torch's own (a `.compile()`d module of the user's starts at
    `_call_impl` too, then compiles its forward: not recorded, so not counted); None
    otherwise."""
    try:
        f = sys._getframe(1)
        while f is not None and not f.f_code.co_filename.replace(os.sep, "/").endswith(
                _WRAPPER):
            f = f.f_back
        fn = f.f_locals.get("fn") if f is not None else None
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is None or code is not frame.f_code:
            return None
        owner = frame.f_locals.get("self")
        module = type(owner).__module__ if owner is not None else \
            getattr(getattr(fn, "__func__", fn), "__module__", "") or ""
        if not module.startswith("torch."):
            return None
        name = frame.f_code.co_name
        return f"{type(owner).__name__}.{name}" if owner is not None else name
    except Exception:  # noqa: BLE001 - fail open: no record rather than a wrong one
        return None


def _said(exc: BaseException) -> str:
    """The suppressed error in torch's words: its graph-break type and explanation (an
    Unsupported's first lines), else its type and first line."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    gb = getattr(exc, "gb_type", None)
    expl = next((ln.split(":", 1)[1].strip() for ln in lines
                 if ln.startswith("Explanation:")), "")
    hint = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Hint:")), "")
    if gb:
        return " ".join(x for x in (f"{gb}.", expl, f"Hint: {hint}" if hint else "") if x)
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def install(capture: Any, call_line: Callable[[], Any]) -> None:
    """`call_line()`: the user's line that called the compiled function, from the live stack."""
    from torch._dynamo import convert_frame

    original = getattr(convert_frame, "add_skip_reason", None)
    if original is None or getattr(original, "_compdiag", False):
        return
    seen: set[tuple[Any, str]] = set()

    def add_skip_reason(reason: Any, frame: Any) -> Any:
        text = str(reason)
        if text.startswith(SUPPRESSED) and not capture.paused_depth:
            # the error Dynamo suppressed for this frame, where no compile had started (a
            # generator's frame): nothing else records it
            said = _SUPPRESSED.pop(getattr(frame, "f_code", None), None)
            if said is not None and _called_by_compile_wrapper():
                capture.guarded("frame skip", _record, capture, f"{text}: {said}", frame,
                                call_line, seen)
        elif any(w in text for w in NEWS) and not capture.paused_depth:
            capture.guarded("frame skip", _record, capture, text, frame, call_line, seen)
        elif text == SKIPFILES and not capture.paused_depth and \
                (entry := _torch_entry(frame)) is not None:
            # the compiled callable itself is torch's code (`nn.Sequential(...).compile()`:
            # its _call_impl and every layer's forward): nothing compiles unless a frame of
            # the user's runs under it, which the analysis checks (probes32a
            # dcgan_sequential_compile: "0 compiles; no problems found")
            capture.guarded("frame skip", _record, capture, f"{text} ({entry})", frame,
                            call_line, seen)
        return original(reason, frame)

    add_skip_reason._compdiag = True  # type: ignore[attr-defined]
    convert_frame.add_skip_reason = add_skip_reason
    _keep_suppressed(convert_frame)


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
