"""A graph break on an operand the program drew with Python's `random` a few lines before.

probes31b random_crop_offsets: `top = random.randint(0, images.shape[2] - CROP)` (line 13),
then `images[:, :, top:top + CROP, ...]` (15) broke the graph on "unimplemented builtin op on
tensor arguments" (`add`), and nothing said that `top` was a random draw. torch names the
line that used the value; the value's origin is the program's own assignment above it, in the
compiled function's source (stored with the run). The fix the probe verified: draw outside the
compiled function and pass the numbers in."""

from __future__ import annotations

from typing import Any

from compdiag.formats.code_text import drawn_from, read_names
FIX = ("{name} {come} from Python's `random` (`{call}(...)` at {at}), which Dynamo does not "
       "keep as a plain number: the operation on {it} at this line cannot be traced. Draw "
       "{it} outside the compiled function and pass {it} in (a Python int argument is made "
       "dynamic after one recompile), together with any other draw the function makes.")


def random_origin(ctx: Any, cid: str | None, frame: Any) -> dict[str, Any] | None:
    """The nearest assignment above the break's line, inside the compiled function, of a name
    that line reads, from a `random.*(...)` call: {name, call, lineno, fix}; None if none, or
    if the break's own line calls `random.` (its own rules say that)."""
    row = ctx.code_row(cid) if cid else None
    if not row or not frame.lineno or not frame.filename or "random." in (frame.line or ""):
        return None
    start = row.get("lineno") or 0
    if ctx.resolve(row.get("filename")) != frame.filename or not start < frame.lineno:
        return None
    used = read_names(frame.line)
    drawn: dict[str, tuple[str, int]] = {}  # name -> (call, line), the nearest assignment
    for n in range(frame.lineno - 1, start, -1):
        found = drawn_from(ctx.source_line(frame.filename, n), "random")
        for name in sorted(found[0] & used if found else ()):
            drawn.setdefault(name, (found[1], n))
    if not drawn:
        return None
    names = sorted(drawn, key=lambda k: drawn[k][1])
    calls = list(dict.fromkeys(drawn[k][0] for k in names))
    lines = [drawn[k][1] for k in names]
    many = len(names) > 1
    at = ("lines " if many else "line ") + ", ".join(map(str, lines))
    words = dict(name=" and ".join(names), call=", ".join(calls), at=at,
                 come="come" if many else "comes", it="them" if many else "it")
    return {**words, "call": f"{words['call']}(...)", "fix": FIX.format(**words)}
