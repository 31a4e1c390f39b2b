"""How a program ended, from what it left: the text parsers for a `program_end` record.

A native crash raises no Python exception: what says where and why is faulthandler's dump
(`Fatal Python error: Segmentation fault`, then each thread's stack, most recent call first)
and the last words the C++ runtime or torch wrote on stderr (`terminate called after throwing
an instance of 'c10::Error'` and its `what():`, a failed `Assertion`, glibc's heap checks).
Capture keeps both as raw text in the record; these parsers turn them into the row of
`program_ends` at ingest (and again at reindex)."""

from __future__ import annotations

import json
import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file

_FRAME = lazy_re.compile(r'^\s*File "(?P<file>.+)", line (?P<line>\d+) in (?P<name>.+?)\s*$')
_FATAL = lazy_re.compile(r"^Fatal Python error: (?P<what>.+)$", re.M)
# a thread's stack; `Stack (most recent call first):` where only the signal's thread was dumped
_CURRENT = lazy_re.compile(r"^(?:(?:Current thread|Thread) 0x[0-9a-f]+.*|Stack) "
                           r"\(most recent call first\):", re.M | re.I)
# The C++ runtime's and libc's own words before an abort, in the order they are looked for.
_TERMINATE = lazy_re.compile(r"^terminate called (?:after throwing an instance of .+|"
                        r"without an active exception|recursively)$", re.M)
_ASSERTION = lazy_re.compile(r"^.*Assertion [`'].*[`'] failed\.?$", re.M)
# A device-side assert of a GPU kernel (CUDA prints one line per failing thread): FILE:LINE:
# FUNCTION: block: [..], thread: [..] Assertion `MESSAGE` failed. The file is a generated
# kernel's hashed path and the thread varies, so the kept words are the assertion alone.
_DEVICE_ASSERT = lazy_re.compile(r"^\S+:\d+: [^\n]*block: \[[^\]\n]*\], thread: \[[^\]\n]*\]"
                                 r" (?P<what>Assertion `[^`\n]*` failed\.?)$", re.M)


def device_asserts(text: str | None) -> list[str]:
    """Each device-side assert a GPU kernel printed, in order (`Assertion `MESSAGE` failed.`):
    the ending's words quote the last; parse_failures finds the kernel holding a message."""
    return [m.group("what") for m in _DEVICE_ASSERT.finditer(text or "")]
_LIBC = lazy_re.compile(r"^(?:\*\*\* .+ \*\*\*.*|(?:free|malloc|realloc|munmap_chunk|corrupted"
                   r"|double free)[^\n]*(?:\(\)|corruption|pointer)[^\n]*)$", re.M)
_WHAT_LINES = 12  # lines of a C++ exception's what() kept (c10::Error adds a C++ stack)
TAIL_CHARS = 8000  # the end of stderr kept in the row


def fault_dump(text: str | None) -> dict[str, Any]:
    """{fatal_error, frames (outermost first)} of faulthandler's last dump in TEXT (a fatal
    error's, or a registered signal's, which has no fatal error line): the crashed thread's
    stack ('Current thread'), else the first thread it lists that runs the user's code, else
    the first it lists."""
    text = text or ""
    fatal = list(_FATAL.finditer(text))
    # A signal faulthandler.register()ed (SIGTERM: capture/child.py) dumps the threads with
    # no "Fatal Python error" line: the dump is then the threads listed from the first.
    blocks = list(_CURRENT.finditer(text))
    if not fatal and not blocks:
        return {"fatal_error": None, "frames": []}
    dump = text[fatal[-1].start():] if fatal else text[blocks[0].start():]
    blocks = list(_CURRENT.finditer(dump))
    stacks = [(b, _stack(dump[b.end():])) for b in blocks]
    # The crashed thread when faulthandler knows it ('Current thread'); a crash in a thread
    # with no Python state (an OpenMP worker of a kernel) names none: then the thread that
    # was running the user's code, not whichever helper thread is listed first.
    current = next((s for b, s in stacks if b.group(0).lower().startswith("current")), None)
    # ... and a signal sent from outside (SIGTERM) lands on any thread: one with no Python
    # frame running (a native pool's, waiting), or none of the program's (a timer's, compdiag's
    # store writer's), says nothing of where the program was
    if not fatal and current and not any(is_user_file(f["filename"]) for f in current):
        current = None
    if not current:
        current = next((s for _, s in stacks if any(is_user_file(f["filename"]) for f in s)),
                       stacks[0][1] if stacks else [])
    return {"fatal_error": fatal[-1].group("what").strip() if fatal else None,
            "frames": current[::-1]}


def _stack(text: str) -> list[dict[str, Any]]:
    """One thread's frames as faulthandler lists them (most recent call first)."""
    frames: list[dict[str, Any]] = []
    for line in text.splitlines():
        m = _FRAME.match(line)
        if m is not None:
            frames.append({"filename": m.group("file"), "lineno": int(m.group("line")),
                           "name": m.group("name"), "line": None})
        elif line.strip() == "..." or (not line.strip() and not frames):
            continue  # frames left out, or the header line's end
        else:
            break
    return frames


def native_message(stderr_tail: str | None) -> str | None:
    """The decisive native error at the end of stderr: a C++ exception std::terminate
    reported (with its what()), a failed assertion, or glibc's heap check; None if none."""
    text = stderr_tail or ""
    hit = list(_TERMINATE.finditer(text))
    # Several threads that throw at once (an OpenMP region) print "terminate called
    # recursively" around the one that names the exception: that one says why.
    hit = [m for m in hit if "after throwing" in m.group(0)] or hit
    if hit:
        lines = text[hit[-1].start():].splitlines()
        kept = [lines[0]]
        for line in lines[1:_WHAT_LINES]:
            if line.startswith(("Exception raised from", "frame #", "Fatal Python error")):
                break
            kept.append(line.rstrip())
        return "\n".join(kept).strip()
    device = device_asserts(text)
    if device:
        return f"device-side {device[-1]}"
    for pattern in (_ASSERTION, _LIBC):
        found = list(pattern.finditer(text))
        if found:
            return found[-1].group(0).strip()
    return None


def program_end_row(payload: str | None) -> dict[str, Any] | None:
    """The program_ends columns of one `program_end` record's payload (None: unreadable)."""
    try:
        end = json.loads(payload or "")
    except ValueError:
        return None
    if not isinstance(end, dict) or not isinstance(end.get("how"), str):
        return None
    tail = str(end.get("stderr_tail") or "")[-TAIL_CHARS:] or None
    dump = fault_dump(end.get("fault"))
    if not dump["frames"] and end.get("how") == "signal":
        dump = fault_dump(tail)  # faulthandler on stderr: the program enabled it itself
    frames = [f for f in end.get("frames") or [] if isinstance(f, dict)] or dump["frames"]
    return {"how": end["how"], "exit_code": _int(end.get("exit_code")),
            "signal": _int(end.get("signal")), "frames": frames,
            "fatal_error": dump["fatal_error"], "native_message": native_message(tail),
            "stderr_tail": tail}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
